"""A validator for the small JSON Schema subset the tool's schemas use.

jsonschema is not a dependency of the project, and the schemas deliberately use only the
keywords every provider accepts, so checking that subset by hand is short. The validator
refuses any keyword it does not know: a schema that starts using one fails the tests until
the subset (and this file) is extended on purpose.
"""

from __future__ import annotations

from typing import Any

ALLOWED_KEYWORDS = frozenset(
    {
        "type",
        "description",
        "properties",
        "required",
        "enum",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "items",
        "minItems",
        "maxItems",
        "additionalProperties",
    }
)
"""Every keyword the tool's schemas may use."""


class SchemaViolation(ValueError):
    """A value does not match a schema; the message gives the JSON path."""


def _type_matches(expected: str, value: object) -> bool:
    if expected == "object":
        return isinstance(value, dict)
    if expected == "array":
        return isinstance(value, list)
    if expected == "string":
        return isinstance(value, str)
    if expected == "boolean":
        return isinstance(value, bool)
    if expected == "integer":
        # JSON Schema: any number whose fractional part is zero; a boolean is not a number.
        if isinstance(value, bool):
            return False
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if expected == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    raise AssertionError(f"unknown type {expected!r}")


def check_keywords(schema: dict[str, Any], path: str = "$") -> None:
    """Fail on any keyword outside :data:`ALLOWED_KEYWORDS`, anywhere in ``schema``."""
    unknown = set(schema) - ALLOWED_KEYWORDS
    if unknown:
        raise AssertionError(f"{path} uses keywords outside the subset: {sorted(unknown)}")
    if schema.get("additionalProperties", False) is not False:
        raise AssertionError(f"{path}: additionalProperties may only be false")
    for name, child in schema.get("properties", {}).items():
        check_keywords(child, f"{path}.{name}")
    if "items" in schema:
        check_keywords(schema["items"], f"{path}[]")


def validate(value: object, schema: dict[str, Any], path: str = "$") -> None:
    """Raise :class:`SchemaViolation` unless ``value`` matches ``schema``."""
    check_keywords(schema, path)
    if "type" in schema and not _type_matches(schema["type"], value):
        raise SchemaViolation(f"{path}: expected {schema['type']}, got {value!r}")
    if "enum" in schema and value not in schema["enum"]:
        raise SchemaViolation(f"{path}: {value!r} is not one of {schema['enum']}")
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            raise SchemaViolation(f"{path}: {value} is under {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            raise SchemaViolation(f"{path}: {value} is over {schema['maximum']}")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            raise SchemaViolation(f"{path}: shorter than {schema['minLength']}")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            raise SchemaViolation(f"{path}: longer than {schema['maxLength']}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            raise SchemaViolation(f"{path}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            raise SchemaViolation(f"{path}: more than {schema['maxItems']} items")
        for position, item in enumerate(value):
            validate(item, schema.get("items", {}), f"{path}[{position}]")
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                raise SchemaViolation(f"{path}: missing required {name!r}")
        for name, item in value.items():
            if name in properties:
                validate(item, properties[name], f"{path}.{name}")
            elif schema.get("additionalProperties") is False:
                raise SchemaViolation(f"{path}: {name!r} is not allowed")
