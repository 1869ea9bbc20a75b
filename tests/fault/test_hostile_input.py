"""Fault harness, hostile input: what a model, a trace file or a settings file may throw at us.

``run(count, seed)`` tries ``count`` seeded ``pi_fold_context`` calls against a real
session (folds, pending marks, an evidence artifact), plus ``count // 25`` damaged trace
files per importer format and ``count // 25`` hostile settings files. The promises checked
(DESIGN §12, issue 9):

* no exception escapes ``run_tool``, ``load_trace`` (beyond its ``TraceFormatError``) or
  ``SettingsFile.load`` (beyond its ``SettingsError``);
* a refused tool call leaves the engine's full state unchanged, log bytes included;
* at the end the session's audit has no unattributed rewrite, every fold peeks back its
  entries, and a reopen rebuilds the same state;
* no file is created outside the session's state folder (traversal ids reach no path).

``benchmarks/fault_harness.py`` runs ``run(100_000, seed)``; CI runs a few thousand.
"""

from __future__ import annotations

import json
import os
import random
import tempfile
import traceback
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from pifold_agent.bundled_traces import demo_trace, traces_folder
from pifold_agent.importers import TraceFormatError, load_trace
from pifold_core.engine import Engine
from pifold_core.entries import Entry, TextBlock
from pifold_core.settings import SettingsError, SettingsFile
from pifold_core.tool import run_tool
from pifold_core.tool.schema import ACTIONS, action_arguments
from tests.core.builders import CharCounter, SessionBuilder, drive, small_options
from tests.core.engine_checks import (
    assert_clean_audit,
    assert_lossless,
    assert_reopens_identically,
    chapters,
    full_state,
)
from tests.fault.hostile_values import (
    HOSTILE_NUMBERS,
    HOSTILE_STRINGS,
    hostile_line,
    hostile_value,
    mutate_record,
    sliced_bytes,
    to_json_text,
)
from tests.fault.tally import FaultTally

REPOSITORY = Path(__file__).resolve().parents[2]
TRACES = traces_folder()
SAMPLE_LINES = 60
"""Real records taken from the head of each trace: enough for every record shape."""
CASES_PER_ENGINE = 500
"""Tool calls against one session before a fresh one is built (successful calls move it)."""


def _session_engine(folder: Path) -> Engine:
    """A session with nested folds, pending marks, a clipped-size result and evidence."""
    session = SessionBuilder()
    chapters(session, 4)
    session.user("what next?")
    session.assistant("Waiting.")
    engine = Engine.open(folder, small_options(budget=200_000, min_fold_chars=2_000), CharCounter())
    drive(engine, session.entries)
    engine.commit_now()
    engine.prepare_request()
    later = SessionBuilder(prefix="f")
    chapters(later, 2, first=10)
    call = later.assistant("Reading the log.", [("read", {"path": "build.log"})])
    later.result(call.tool_calls[0], "log line\n" * 5_000)  # over 32 KiB: evidence
    later.user("more?")
    later.assistant("On it.")
    drive(engine, later.entries)
    return engine


def _known_ids(engine: Engine, seen: list[str]) -> list[str]:
    """Ids of the session now, plus every id it had before (spent marks, expanded folds)."""
    ids = (
        list(engine.view.forest.folds) + list(engine.view.marks) + sorted(engine.view.evidence_ids)
    )
    ids += [
        entry.id
        for entry in engine.view.transcript.entries[:: max(1, len(engine.view.transcript) // 8)]
    ]
    known = set(seen)
    seen.extend(identifier for identifier in ids if identifier not in known)
    return seen


def _tool_arguments(rng: random.Random, known: list[str]) -> object:
    """One call's arguments: an object, JSON text or raw bytes, mostly hostile."""
    action: Any = rng.choice(ACTIONS) if rng.random() < 0.9 else hostile_value(rng, [])
    arguments: dict[str, Any] = {}
    if rng.random() < 0.95:
        arguments["action"] = action
    names = list(action_arguments(action)) if isinstance(action, str) and action in ACTIONS else []
    for name in names:
        if rng.random() < 0.7:
            arguments[name] = hostile_value(rng, known)
    if rng.random() < 0.1:
        arguments[rng.choice(HOSTILE_STRINGS)] = rng.choice(HOSTILE_NUMBERS)
    form = rng.random()
    if form < 0.7:
        return arguments
    if form < 0.9:
        return to_json_text(arguments, rng)
    if form < 0.97:
        return sliced_bytes(to_json_text(arguments, rng), rng)
    return hostile_value(rng, known)


def _tool_cases(count: int, seed: int, root: Path, tally: FaultTally) -> None:
    rng = random.Random(seed)
    done = 0
    while done < count:
        folder = root / f"state-{done}"
        engine = _session_engine(folder)
        seen: list[str] = ["mark-12345", "fold-0123456789ab", "e99999"]  # well formed, unknown
        try:
            batch = min(CASES_PER_ENGINE, count - done)
            for number in range(batch):
                case = f"tool case {done + number} (seed {seed})"
                _one_tool_case(engine, rng, case, tally, seen)
            _check_session(engine, f"tool cases {done}..{done + batch} (seed {seed})", tally)
        finally:
            engine.close()
        done += batch


def _one_tool_case(
    engine: Engine, rng: random.Random, case: str, tally: FaultTally, seen: list[str]
) -> None:
    arguments = _tool_arguments(rng, _known_ids(engine, seen))
    call_id: Any = f"call-{case}" if rng.random() < 0.9 else rng.choice(HOSTILE_STRINGS)
    tally.tried += 1
    before = full_state(engine)
    try:
        result = run_tool(engine, arguments, call_id)
    except Exception as error:
        tally.fail(case, f"{type(error).__name__} escaped run_tool: {error}"[:300])
        return
    if result.is_error:
        after = full_state(engine)
        changed = [key for key, value in before.items() if after[key] != value]
        if changed:
            tally.fail(case, f"refused call changed {', '.join(changed)}: {result.text[:120]}")
        if not result.text.startswith("error:"):
            tally.fail(case, f"error result does not say so: {result.text[:120]}")
    # A successful call may move the session; a pending model request keeps the audit honest.
    if not result.is_error and rng.random() < 0.2:
        engine.append(
            Entry(f"r-{len(engine.view.transcript)}", "note", 0, (TextBlock(result.text[:200]),))
        )
        engine.prepare_request()


def _check_session(engine: Engine, case: str, tally: FaultTally) -> None:
    try:
        engine.prepare_request()
        assert_clean_audit(engine)
        assert_lossless(engine)
        assert_reopens_identically(engine)
    except Exception as error:
        tally.fail(case, f"session check failed: {type(error).__name__}: {error}"[:300])


def _trace_samples() -> dict[str, tuple[str, list[Any]]]:
    """Per format: how it is laid out (``lines`` or ``document``) and real records."""
    samples: dict[str, tuple[str, list[Any]]] = {}
    for name, relative in (
        ("pi", demo_trace()),
        ("claude-code", TRACES / "claude-code-session-share" / "general-tool-calls.jsonl"),
        ("codex", TRACES / "codex-soulpass" / "codex-session.jsonl"),
    ):
        if relative.is_file():
            with relative.open("rb") as stream:
                lines = [stream.readline() for _ in range(SAMPLE_LINES)]
            samples[name] = ("lines", [_parsed(line) for line in lines if _parsed(line)])
    for name, relative in (
        ("gemini-cli", TRACES / "gemini-cli" / "trajectory.json"),
        ("mini-swe-agent", TRACES / "mini-swe-agent-deepseek" / "django__django-13265.traj.json"),
    ):
        if relative.is_file():
            samples[name] = ("document", [_trimmed(json.loads(relative.read_bytes()))])
    return samples


def _parsed(line: bytes) -> Any:
    """A sample line's record, or ``None`` for a line that is not one JSON object."""
    try:
        record = json.loads(line)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def _trimmed(document: Any) -> Any:
    """The document with every long list cut to its first entries (small, same shape)."""
    stack = [document]
    while stack:
        node = stack.pop()
        members = node.values() if isinstance(node, dict) else node
        if isinstance(node, dict):
            for key, member in list(node.items()):
                if isinstance(member, list) and len(member) > 12:
                    node[key] = member[:12]
        if isinstance(node, dict | list):
            stack.extend(member for member in members if isinstance(member, dict | list))
    return document


def _trace_cases(count: int, seed: int, root: Path, tally: FaultTally) -> None:
    rng = random.Random(seed + 1)
    folder = root / "traces"
    folder.mkdir()
    for name, (layout, records) in sorted(_trace_samples().items()):
        for number in range(count):
            case = f"{name} trace {number} (seed {seed})"
            path = folder / f"{name}-{number}.trace"
            if layout == "lines":
                lines = [json.dumps(record).encode() for record in records]
                for _ in range(rng.randint(1, 4)):
                    position = rng.randrange(len(lines))
                    lines[position] = hostile_line(records[position], rng)
                path.write_bytes(b"\n".join(lines) + b"\n")
            else:
                text = to_json_text(mutate_record(records[0], rng), rng)
                path.write_bytes(
                    sliced_bytes(text, rng)
                    if rng.random() < 0.2
                    else text.encode("utf-8", "surrogatepass")
                )
            _expect_only(tally, case, partial(load_trace, path), TraceFormatError)
            path.unlink()


def _settings_cases(count: int, seed: int, root: Path, tally: FaultTally) -> None:
    rng = random.Random(seed + 2)
    path = root / "settings" / "settings.json"
    path.parent.mkdir()
    good = {
        "thresholds": {
            "maxTarget": 0.8,
            "minTarget": 0.2,
            "consolidateAfter": 10,
            "minFoldChars": 8000,
        },
        "providerInputBudget": 100_000,
        "blacklistAutoFoldTools": ["bash"],
        "toolFoldThreshold": 0.5,
        "preCommitNotice": False,
        "noticeLeadShare": 0.1,
        "palette": {"map": "batlow", "start": 0, "end": 1},
    }
    for number in range(count):
        case = f"settings file {number} (seed {seed})"
        text = to_json_text(mutate_record(good, rng), rng)
        roll = rng.random()
        data = text.encode("utf-8", "surrogatepass")
        if roll < 0.15:
            data = sliced_bytes(text, rng)
        elif roll < 0.2:
            data = b'{"providerInputBudget": 1, "providerInputBudget": 2}'
        elif roll < 0.25:
            data = b"\xef\xbb\xbf" + data
        path.write_bytes(data)
        settings = SettingsFile(path)
        _expect_only(tally, case, settings.load, SettingsError)


def _expect_only(
    tally: FaultTally, case: str, call: Callable[[], object], allowed: type[Exception]
) -> None:
    tally.tried += 1
    try:
        call()
    except allowed:
        return
    except Exception as error:
        where = traceback.extract_tb(error.__traceback__)[-1]
        tally.fail(
            case,
            f"{type(error).__name__} escaped ({Path(where.filename).name}:{where.lineno}): {error}"[
                :300
            ],
        )


def _files_outside(root: Path) -> set[str]:
    """Every file under ``root`` that is not inside a session state folder or our scratch."""
    found: set[str] = set()
    for directory, _, files in os.walk(root):
        top = Path(directory).relative_to(root).parts[:1]
        if top and (top[0].startswith("state-") or top[0] in {"traces", "settings"}):
            continue
        found.update(str(Path(directory, name)) for name in files)
    return found


def run(count: int, seed: int) -> FaultTally:
    """``count`` hostile tool calls, plus ``count // 25`` trace files per format and settings
    files; returns what was tried and every broken promise."""
    tally = FaultTally("hostile input")
    with tempfile.TemporaryDirectory(prefix="pifold-hostile-") as scratch:
        root = Path(scratch)
        cwd_before = set(os.listdir(Path.cwd()))
        _tool_cases(count, seed, root, tally)
        _trace_cases(max(1, count // 25), seed, root, tally)
        _settings_cases(max(1, count // 25), seed, root, tally)
        outside = _files_outside(root) | (set(os.listdir(Path.cwd())) - cwd_before)
        if outside:
            tally.fail(f"seed {seed}", f"files created outside the state folder: {sorted(outside)}")
    return tally


def test_hostile_input_escapes_nothing_and_changes_nothing() -> None:
    tally = run(3_000, seed=9)
    assert tally.tried >= 3_000
    assert not tally.failures, "\n".join(tally.failures[:20])
