"""Fault harness, security: ids never reach a path, private modes, no secret in any file.

* **Ids never reach a path.** Random path-like ids (traversal, absolute paths, home and
  drive prefixes, NUL, encoded dots, ids with a real prefix and a path after it) are passed
  to every action of ``pi_fold_context`` that takes an id, and to the engine's verbs
  directly. Each is refused with an error result (or ``PeekError``/``EngineError``) that
  changes nothing, and no file appears anywhere outside the state folder, nor inside it.
* **Modes.** A replay and a doctor repair run under ``umask 000`` still leave every folder of
  the state 0700, the log and lock 0600, store objects and evidence 0400, and a new settings
  file 0600.
* **Secrets.** With ``ANTHROPIC_API_KEY`` and ``OPENAI_API_KEY`` set in the environment, no
  file written by a replay (state, window, settings) or a doctor run holds either key.
"""

from __future__ import annotations

import os
import random
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from typer.testing import CliRunner

from pifold_cli.app import app
from pifold_core.engine import Engine, EngineError
from pifold_core.options import EngineOptions
from pifold_core.peek import PeekError
from pifold_core.settings import SettingsFile
from pifold_core.state_folder import loose_state_modes
from pifold_core.tool import run_tool
from tests.conftest import TRACES as BUNDLED
from tests.core.builders import CharCounter
from tests.core.engine_checks import folded_engine, full_state
from tests.fault.tally import FaultTally

TRACE = BUNDLED / "codex-soulpass" / "codex-session.jsonl"
BUDGET = 60_000
RUNNER = CliRunner()

_PREFIXES = ("", "fold-", "evidence-", "mark-", "e", "fold-" + "a" * 12, "evidence-" + "0" * 64)
_PATHS = (
    "../../etc/passwd",
    "/etc/passwd",
    "..",
    "../",
    "./x",
    "~/.ssh/id_rsa",
    "C:\\Windows\\x",
    "..\\..\\x",
    "%2e%2e%2fx",
    "x/../../y",
    "/",
    "\x00",
    "a\x00/../b",
    "store/sha256/00",
    "pwned",
)


def path_like_id(rng: random.Random) -> str:
    """An id an attacker (or a confused model) might try: a prefix, a path, a tail."""
    prefix = rng.choice(_PREFIXES)
    path = rng.choice(_PATHS)
    separator = rng.choice(("", "/", "\\", "/../"))
    tail = rng.choice(("", "/", ".json", "/../../pwned"))
    return f"{prefix}{separator}{path}{tail}"


def _calls(identifier: str) -> list[dict[str, object]]:
    return [
        {"action": "peek", "id": identifier},
        {"action": "peek", "id": identifier, "ephemeral": False},
        {"action": "expand", "id": identifier},
        {"action": "refold", "id": identifier},
        {"action": "pin", "ids": [identifier]},
        {"action": "unpin", "ids": [identifier]},
        {"action": "brief", "id": identifier, "text": "a brief"},
        {"action": "reboundary", "id": "mark-1", "start": identifier, "end": identifier},
        {"action": "unmark", "id": identifier},
    ]


def _tree(root: Path) -> set[Path]:
    return {path for path in root.rglob("*")}


def _ids_never_reach_a_path(count: int, rng: random.Random, tally: FaultTally) -> None:
    with tempfile.TemporaryDirectory(prefix="pifold-security-") as scratch:
        root = Path(scratch)
        engine, _ = folded_engine(root)
        try:
            outside = _tree(root)
            working = set(Path.cwd().iterdir())
            before = full_state(engine)
            for number in range(count):
                identifier = path_like_id(rng)
                for call in _calls(identifier):
                    tally.tried += 1
                    result = run_tool(engine, call, f"call-{number}")
                    if not result.is_error:
                        tally.fail(f"{call}", "a path-like id was accepted")
                for verb in (engine.peek, engine.expand, engine.refold):
                    tally.tried += 1
                    try:
                        verb(identifier)
                        tally.fail(f"{verb.__name__}({identifier!r})", "accepted")
                    except (PeekError, EngineError):
                        pass
            if full_state(engine) != before:
                tally.fail("path-like ids", "the engine's state or log changed")
            if _tree(root) != outside:
                tally.fail("path-like ids", f"files appeared: {sorted(_tree(root) - outside)}")
            if set(Path.cwd().iterdir()) != working:
                tally.fail("path-like ids", "files appeared in the working folder")
        finally:
            engine.close()


@contextmanager
def _environment(values: dict[str, str], umask: int) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    previous = os.umask(umask)
    try:
        yield
    finally:
        os.umask(previous)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _modes_and_secrets(rng: random.Random, tally: FaultTally) -> None:
    secret = "".join(rng.choice("abcdef0123456789") for _ in range(32))
    keys = {
        "ANTHROPIC_API_KEY": f"sk-ant-test-{secret}",
        "OPENAI_API_KEY": f"sk-test-{secret[::-1]}",
    }
    with tempfile.TemporaryDirectory(prefix="pifold-security-") as scratch:
        root = Path(scratch)
        state = root / "state"
        with _environment({**keys, "XDG_CONFIG_HOME": str(root / "config")}, umask=0o000):
            result = RUNNER.invoke(
                app,
                ["replay", str(TRACE), "--budget", str(BUDGET), "--state", str(state),
                 "--window-out", str(root / "window.json"), "--json"],
            )  # fmt: skip
            tally.tried += 1
            if result.exit_code != 0:
                tally.fail("replay under umask 000", f"exit {result.exit_code}: {result.output}")
                return
            RUNNER.invoke(app, ["doctor", str(state), "--repair"])
            SettingsFile().save(EngineOptions(budget=50_000))
        tally.tried += 1
        loose = loose_state_modes(state)
        if loose:
            tally.fail("modes under umask 000", f"wider than private: {loose[:3]}")
        settings = root / "config" / "pi-fold" / "settings.json"
        tally.tried += 1
        if stat.S_IMODE(settings.stat().st_mode) != 0o600:
            tally.fail("settings mode", f"{stat.S_IMODE(settings.stat().st_mode):04o}")
        objects = [path for path in state.rglob("*") if path.parent.parent.name == "sha256"]
        tally.tried += 1
        if not objects or any(stat.S_IMODE(path.stat().st_mode) != 0o400 for path in objects):
            tally.fail("object modes", "store objects and evidence must be 0400")
        for path in root.rglob("*"):
            if not path.is_file():
                continue
            tally.tried += 1
            data = path.read_bytes()
            for name, value in keys.items():
                if value.encode() in data:
                    tally.fail(f"{path.relative_to(root)}", f"holds the value of {name}")
        reopened = Engine.open(state, None, CharCounter(), read_only=True)
        reopened.close()


QUICK_COUNT = 100
"""Cases ``benchmarks/fault_harness.py --quick`` runs (the CI test runs about as many)."""


def run(count: int, seed: int) -> FaultTally:
    """``count`` path-like ids through every id-taking action, then modes and secrets."""
    tally = FaultTally("security")
    rng = random.Random(seed)
    _ids_never_reach_a_path(count, rng, tally)
    _modes_and_secrets(rng, tally)
    return tally


def test_ids_never_reach_a_path_modes_are_private_and_no_secret_is_written() -> None:
    tally = run(count=40, seed=3)
    assert tally.tried > 40 * 12
    assert tally.failures == []
