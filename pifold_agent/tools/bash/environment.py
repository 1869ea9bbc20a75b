"""The environment a bash command runs in: pifold's own, less the secrets.

Whatever a command prints reaches the model, the session file, the fold log and every later
request, so ``env`` (or ``printenv``, or a failing script that dumps its environment) must
not print an API key. The command therefore runs with pifold's environment **less**:

* the variables the providers read their keys from (:data:`PROVIDER_KEY_VARIABLES`) and the
  one ``--api-key-env`` names, which the tool is given when it is built;
* every variable whose name looks secret (:data:`SECRET_NAME`, case-insensitive): a name
  ending in ``_KEY`` or ``_APIKEY`` (``*_API_KEY`` included), holding ``TOKEN`` as a word
  (``GITHUB_TOKEN``, ``GH_TOKEN``, ``AWS_SESSION_TOKEN``; not ``TOKENIZERS_PARALLELISM``),
  or holding ``SECRET``, ``PASSWORD``, ``PASSWD``, ``PASSPHRASE`` or ``CREDENTIALS``
  (``AWS_SECRET_ACCESS_KEY``, ``GOOGLE_APPLICATION_CREDENTIALS``).

**The allowlist.** ``PIFOLD_BASH_PASS_ENV`` is a comma-separated list of names passed on
all the same (``PIFOLD_BASH_PASS_ENV=GITHUB_TOKEN,NPM_TOKEN``), for a command that needs
one; the user chooses, knowing the model may then see it.

**What is not protected.** Values are not inspected, so a secret under an innocent name
(``DATABASE_URL=postgres://user:password@...``) passes; and a command can still read a key
from a file. As a second line, every dropped value of 8 characters or more is replaced in
the command's output (the result, the streamed text and the full-output log) by
``[NAME removed]`` (:class:`Redactor`): reading ``/proc/<pifold's pid>/environ`` or a
``.env`` file holding the same key shows the name, not the key.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from pifold_agent.providers.registry import KEY_VARIABLES

PROVIDER_KEY_VARIABLES: tuple[str, ...] = KEY_VARIABLES
"""The variables the provider adapters read their keys from (the provider table's)."""

PASS_VARIABLE = "PIFOLD_BASH_PASS_ENV"
"""The allowlist: comma-separated names passed on to bash although they look secret."""

SECRET_NAME = re.compile(
    r"(_KEY$|_APIKEY$|^APIKEY$|(^|_)TOKEN(_|$)|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS)",
    re.IGNORECASE,
)
"""A variable name that looks like it holds a secret."""

REDACTED_MINIMUM = 8
"""Shorter dropped values are not searched for in the output (too likely to be words)."""


@dataclass(frozen=True, slots=True)
class CommandEnvironment:
    """What a command is given, and what was held back from it."""

    variables: dict[str, str]
    """The environment the command runs with."""
    dropped: dict[str, str]
    """The variables held back, by name (their values are redacted from the output)."""


def allowlist(environment: Mapping[str, str]) -> frozenset[str]:
    """The names :data:`PASS_VARIABLE` lists."""
    listed = environment.get(PASS_VARIABLE, "")
    return frozenset(name.strip() for name in listed.split(",") if name.strip())


def is_secret_name(name: str) -> bool:
    """Whether the name looks like it holds a secret."""
    return SECRET_NAME.search(name) is not None


def command_environment(
    environment: Mapping[str, str], key_variables: Collection[str] = ()
) -> CommandEnvironment:
    """``environment`` split into what a command gets and what is held back.

    ``key_variables`` are dropped whatever they are called (the ``--api-key-env`` name);
    :data:`PROVIDER_KEY_VARIABLES` always are. The allowlist wins over both.
    """
    passed = allowlist(environment)
    protected = {*PROVIDER_KEY_VARIABLES, *key_variables}
    variables: dict[str, str] = {}
    dropped: dict[str, str] = {}
    for name, value in environment.items():
        if name not in passed and (name in protected or is_secret_name(name)):
            dropped[name] = value
        else:
            variables[name] = value
    return CommandEnvironment(variables, dropped)


class Redactor:
    """Replaces secret values in a stream of output bytes, across chunk boundaries."""

    def __init__(self, secrets: Mapping[str, str]) -> None:
        needles = {
            value.encode("utf-8", "surrogateescape"): f"[{name} removed]".encode()
            for name, value in secrets.items()
            if len(value) >= REDACTED_MINIMUM
        }
        self._needles = sorted(needles.items(), key=lambda pair: -len(pair[0]))
        self._held = max((len(needle) for needle in needles), default=1) - 1
        self._pending = b""

    def feed(self, chunk: bytes) -> bytes:
        """The output that is safe to pass on; the last bytes, where a secret might begin,
        are held until the next chunk or :meth:`flush`."""
        if not self._needles:
            return chunk
        data = self._replace(self._pending + chunk)
        cut = max(0, len(data) - self._held)
        self._pending = data[cut:]
        return data[:cut]

    def flush(self) -> bytes:
        """Whatever is still held (the stream ended)."""
        data, self._pending = self._replace(self._pending), b""
        return data

    def _replace(self, data: bytes) -> bytes:
        for needle, replacement in self._needles:
            data = data.replace(needle, replacement)
        return data


__all__ = [
    "PASS_VARIABLE",
    "PROVIDER_KEY_VARIABLES",
    "REDACTED_MINIMUM",
    "SECRET_NAME",
    "CommandEnvironment",
    "Redactor",
    "allowlist",
    "command_environment",
    "is_secret_name",
]
