"""The floor the host's fixed prefix sets, as the agent meets it (issue 22).

The agent's system prompt and tool definitions are part of every request. The loop tells
the engine their size (:meth:`~pifold_agent.loop.window.EngineWindow.state_prefix`), and at
start a run names the floor they set when they alone sit above the commit aim or the budget
(:meth:`~pifold_agent.loop.window.EngineWindow.prefix_notices`: stderr, the app's notices;
:func:`prefix_lines`: ``/model``).

Overflow recovery fails at once when no fold can help (:func:`overflow_refusal`). The
provider refused a request as too long. Recovery folds and sends the same request again,
which helps only when something foldable stands between the request and the budget. Against
a real local model it did not: the window held a 2,848-token fixed prefix (system prompt and
tool definitions) and a few messages, nothing was foldable, and two recoveries each committed
nothing ("5 -> 5 tokens") before the run ended on the server's own error. So before
committing, the loop asks whether a commit would change anything and whether the prefix
alone fits; when no fold can bring the request under, the run ends at once with one error
that names the prefix, the budget and what to do, and nothing is committed.
"""

from __future__ import annotations

from pifold_core.engine import Engine
from pifold_core.host_prefix import PREFIX_ADVICE

SMALLER_WINDOW_ADVICE = (
    "the model's window is smaller than the budget: lower --budget to what the model's "
    "server serves, or offer fewer tools"
)
"""What to do when the provider refuses a request the budget says fits."""


def prefix_lines(engine: Engine) -> list[str]:
    """What ``/model`` says of the fixed prefix: its size and the floor it sets, if any."""
    prefix = engine.view.prefix_tokens
    if not prefix:
        return []
    floor = engine.status().prefix_floor
    lines = [
        f"Fixed prefix: ~{prefix:,} tokens of every request (system prompt and tool "
        "definitions), counted in the bar and /fold-status, never folded."
    ]
    return lines if floor is None else [*lines, f"Floor: {floor.describe()}."]


def overflow_refusal(engine: Engine) -> str | None:
    """Why no commit can bring a refused request under, or ``None`` when one can help.

    Two cases end the run at once: the fixed prefix alone is over the budget (no fold takes
    it out), or a commit would change nothing (its dry run says why)."""
    status = engine.status()
    floor = status.prefix_floor
    if floor is not None and floor.over_budget:
        return f"no fold can help: {floor.describe()}"
    preview = engine.preview_commit("overflow")
    if not preview.refused:
        return None
    expected = engine.expected_tokens()
    prefix = round(engine.view.calibration * engine.view.prefix_tokens)
    if floor is not None:
        advice = floor.describe()
    elif expected <= engine.options.budget:
        advice = SMALLER_WINDOW_ADVICE
    else:
        advice = PREFIX_ADVICE
    return (
        f"nothing is left to fold ({preview.refusal}): the window "
        f"holds about {expected:,} tokens, {prefix:,} of them the fixed prefix (system prompt "
        f"and tool definitions), against a budget of {engine.options.budget:,}; {advice}"
    )


__all__ = ["SMALLER_WINDOW_ADVICE", "overflow_refusal", "prefix_lines"]
