"""Fault harness, agent: headless errors: every error path of ``pifold -p``, on sessions at
random points.

Prepared sessions of three kinds (a few plain turns, one that folded, one run ``--no-fold``)
are copied for each case, moved on by a random number of turns, and met with one fault,
the faults taken in turn in a shuffled order: a bad option or budget, an unknown session id,
a damaged, deleted or truncated fold log, a corrupt store object or checkpoint, a session
file that cannot be read (a folder, a FIFO, a dangling link, no permission), a settings or
models file that is a FIFO, a device, a folder or refused, input that is not UTF-8, input
too large for any request, a session another writer holds, and a provider that refuses,
overflows, stays busy or drops the stream (the real OpenAI SDK against the local server).

Every case checks the command's contract (:mod:`tests.fault.headless_faults`): no
traceback, one ``error:`` line (Typer's usage box for a malformed command line; retry and
fold lines around a failed run's one error), exit 2 for what is refused before anything
runs and 1 for a run that failed after starting, nothing recorded by a refusal; and that
the session still opens afterwards, with nothing it held lost, the wire audit clean and
every fold verified.
"""

from __future__ import annotations

import random
import shutil
import tempfile
from functools import partial
from pathlib import Path

from pifold_agent.sessions.paths import project_name
from tests.agent.headless_cases import (
    FOLDING_BUDGET,
    answer_script,
    folding_script,
    headless,
    options_in,
    scoped_environment,
)
from tests.fault.headless_faults import (
    Case,
    Fault,
    bad_budget,
    bad_option,
    invalid_utf8_input,
    lock_held,
    oversized_input,
    session_file_unusable,
    unknown_session,
)
from tests.fault.headless_state_faults import (
    DROPS_PER_RUN,
    corrupt_checkpoint,
    corrupt_store_object,
    damaged_log,
    deleted_log,
    models_file,
    provider_refuses,
    settings_file,
    truncated_log,
)
from tests.fault.tally import FaultTally

CATEGORY = "agent: headless errors"

QUICK_COUNT = 45
"""Cases ``benchmarks/fault_harness.py --quick`` runs: every fault three times."""

FULL_COUNT = 1_500
"""Cases of a full run: every fault a hundred times."""

TEMPLATES_PER_KIND = 3
"""Prepared sessions of each kind, each at its own point (turns taken); a small run (fewer
than :data:`SMALL_RUN` cases) prepares one of each."""

SMALL_RUN = 100
"""Below this many cases, one template of each kind and no dropped stream (a drop costs
the loop's first retry wait, two seconds): the pytest form stays quick."""

ALL = ("plain", "folded", "no-fold")
WITH_LOG = ("plain", "folded")


def prepare(root: Path, kind: str, turns: int) -> Path:
    """A session of ``kind`` after ``turns`` headless runs, under ``root``."""
    root.mkdir(parents=True)
    fields: dict[str, object] = {"no_fold": kind == "no-fold"}
    if kind == "folded":
        outcome = headless(
            options_in(root, script=folding_script(root), budget=FOLDING_BUDGET, **fields)
        )
        assert outcome.code == 0, outcome.err
        fields["budget"] = FOLDING_BUDGET
        turns -= 1
    for number in range(turns):
        script = answer_script(root, f"answer {number}")
        outcome = headless(options_in(root, script=script, continue_session=True, yes=True,
                                      prompt=f"turn {number}", **fields))  # fmt: skip
        assert outcome.code == 0, outcome.err
    return root


def copy_of(template: Path, root: Path) -> None:
    """``template``'s session under ``root``, its project folder renamed for ``root/work``."""
    shutil.copytree(template, root, symlinks=True)
    sessions = root / "sessions"
    (sessions / project_name(template / "work")).rename(sessions / project_name(root / "work"))


def faults(config: Path, drops: list[int]) -> list[tuple[str, Fault, tuple[str, ...]]]:
    """Every fault, by name, with the kinds of session it applies to."""
    return [
        ("bad option", bad_option, ALL),
        ("bad budget", bad_budget, ALL),
        ("unknown session", unknown_session, ALL),
        ("damaged log", damaged_log, WITH_LOG),
        ("deleted log", deleted_log, WITH_LOG),
        ("truncated log", truncated_log, WITH_LOG),
        ("corrupt store object", corrupt_store_object, ("folded",)),
        ("corrupt checkpoint", corrupt_checkpoint, WITH_LOG),
        ("session file unusable", session_file_unusable, ALL),
        ("settings file", partial(settings_file, config=config), WITH_LOG),
        ("models file", partial(models_file, config=config), ALL),
        ("invalid UTF-8 input", invalid_utf8_input, ALL),
        ("oversized input", oversized_input, ALL),
        ("lock held", lock_held, ALL),
        ("provider refuses", partial(provider_refuses, drops=drops), ALL),
    ]


def run(count: int, seed: int) -> FaultTally:
    """``count`` faults, taken in turn, on copies of prepared sessions."""
    tally = FaultTally(CATEGORY)
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="pifold-headless-faults-") as scratch:
        base = Path(scratch)
        environment = {
            "XDG_CONFIG_HOME": str(base / "config"),
            "PIFOLD_HOME": str(base / "home"),
        }
        with scoped_environment(environment):
            small = count < SMALL_RUN
            templates = {
                kind: [
                    prepare(base / f"template-{kind}-{number}", kind, rng.randrange(1, 4))
                    for number in range(1 if small else TEMPLATES_PER_KIND)
                ]
                for kind in ALL
            }
            # A dropped stream already counted is one the run does without.
            drops: list[int] = [0] * DROPS_PER_RUN if small else []
            every = faults(base / "config", drops)
            order: list[tuple[str, Fault, tuple[str, ...]]] = []
            for number in range(count):
                if not order:
                    order = rng.sample(every, len(every))
                name, fault, kinds = order.pop()
                kind = rng.choice(kinds)
                root = base / f"case-{number}"
                copy_of(rng.choice(templates[kind]), root)
                case = Case(root, kind, random.Random(rng.random()), tally, name)
                try:
                    for _ in range(rng.randrange(2)):  # a random point: more turns first
                        assert case.run().code == 0
                    fault(case)
                except Exception as error:
                    tally.fail(f"{name} ({kind})", f"{type(error).__name__}: {error}")
                shutil.rmtree(root, ignore_errors=True)
    return tally


def test_every_headless_error_path_is_one_line_and_leaves_the_session_usable() -> None:
    tally = run(count=15, seed=11)  # every fault once
    assert tally.tried >= 15 * 2
    assert tally.failures == []
