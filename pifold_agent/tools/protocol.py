"""The contract between the agent loop and a tool (read, write, edit, bash, ... and the fold tool).

For the tools engineer (``pifold_agent/tools/``): a tool is any object with the four members
of :class:`Tool`; nothing has to inherit from anything. The loop guarantees:

* ``run`` is awaited once per call, concurrently with the other calls of the same batch; the
  results are finalised (recorded and shown to the model) in the assistant's order, whatever
  order they finish in.
* **Calls that share a file run in the assistant's order.** A tool that touches files says
  which through an optional ``footprint(arguments, cwd)`` method (:class:`TouchesFiles`),
  returning a :class:`Footprint`; the batch starts a call only once every earlier call it
  conflicts with has finished (:mod:`pifold_agent.loop.call_order`). A tool without the
  method touches no file and is never held back (the fold tool).
* Whatever ``run`` returns is made admissible before it is recorded (lone surrogates and
  NUL become U+FFFD, details become plain JSON: :mod:`pifold_agent.loop.admissible`), so a
  tool need not worry that a file name or an output byte could stop the run.
* ``arguments`` is what the model sent. It is normally a JSON object, but a provider may hand
  over unparseable text as a string: the loop refuses a non-object with an error result
  before calling ``run``, so ``run`` always receives a ``dict``. Checking its fields is the
  tool's job.
* A failure is reported by returning ``ToolOutcome(..., is_error=True)`` or by raising any
  exception (``BaseException`` subclasses included) other than ``asyncio.CancelledError``
  and :class:`ToolCrash`: the loop turns it into an error result carrying its message,
  never a crashed run, and the batch's other results are kept.
* **Abort** is task cancellation: when the user aborts, the task awaiting ``run`` receives
  ``asyncio.CancelledError``. A tool that started processes must kill them there (bash kills
  its child's whole process group) and then let the cancellation propagate. The loop records
  an error result "aborted" for every call that did not finish.
* ``context.update(text)`` streams partial output to the UI (a ``tool_execution_update``
  event). It is never sent to the model.
* :class:`ToolCrash` is for damage the model cannot act on (a corrupt fold store): the loop
  lets it end the run loudly instead of disguising it as a result.

**What a tool is, it says itself**, in an optional ``traits`` attribute (:class:`ToolTraits`):
whether a call asks the user first, what it touches, its headline argument, where it stands
in the tool list. A tool without them is taken for the built-in tool of its name (a stand-in,
such as a recorded one) or else is plain: it asks nothing, touches nothing and is listed by
name. :mod:`pifold_agent.tools.registry` reads them (``traits_of``) and derives every table
about the built-in tools from them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Protocol

from pifold_core.canonical import JsonValue
from pifold_core.entries import ImageBlock


class ToolCrash(RuntimeError):
    """Raised by a tool for damage that must stop the run rather than become a result."""


@dataclass(frozen=True, slots=True)
class ToolContext:
    """What the loop tells a tool about the call it is running."""

    call_id: str
    """The provider's id of this tool call."""
    cwd: Path
    """The agent's working directory; relative paths resolve against it."""
    update: Callable[[str], None]
    """Report partial output (shown to the user, never sent to the model)."""
    result_limit_bytes: int | None = None
    """The most bytes of text a result can have and reach the model whole (past it the
    folding engine keeps the result as evidence and shows a head and a tail); ``None``: no
    limit beyond the tools' own. A tool that cuts its output cuts it under this, so that its
    notice (``Use offset=N to continue``) describes what the model really saw."""


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """What one tool call produced: the model sees ``text`` (and ``images``)."""

    text: str
    """The result text sent to the model."""
    is_error: bool = False
    """Whether the call failed (a non-zero bash exit, a missing file, bad arguments)."""
    images: tuple[ImageBlock, ...] = ()
    """Images returned with the text (the read tool on a picture)."""
    details: Mapping[str, JsonValue] = field(default_factory=dict)
    """Data for the UI and the session file (a diff, a full-output path); never sent to the
    model."""


@dataclass(frozen=True, slots=True)
class Footprint:
    """The files one call may touch, so that calls of a batch sharing one run in order.

    Paths are absolute, as the tool resolves its arguments; the batch compares them under
    every spelling (symbolic links resolved, the same inode) before deciding two calls are
    apart. A conflict is a write against anything touching the same file, or a write inside
    a folder another call lists or searches; reads never conflict with reads.
    """

    reads: tuple[Path, ...] = ()
    """Files the call reads."""
    writes: tuple[Path, ...] = ()
    """Files the call creates or changes (their folders too, when it creates them)."""
    trees: tuple[Path, ...] = ()
    """Folders the call lists or searches: anything written at or under them conflicts."""
    everything: bool = False
    """The call may touch any file (bash): it waits for every earlier call that touches
    files, and every later one waits for it (a barrier)."""

    @property
    def touches_files(self) -> bool:
        """Whether the call touches any file at all."""
        return self.everything or bool(self.reads or self.writes or self.trees)


class Touches(Enum):
    """What a tool's calls touch, as the compaction summary and the read-only set count it."""

    NOTHING = "nothing"
    """No file and no command (the fold tool)."""
    READS_FILE = "reads_file"
    """Its ``path`` argument names the one file it reads (``read``)."""
    SEARCHES = "searches"
    """It lists or searches under its ``path`` and changes nothing (``grep``, ``find``,
    ``ls``)."""
    MODIFIES_FILE = "modifies_file"
    """Its ``path`` argument names the one file it creates or changes (``write``,
    ``edit``)."""
    RUNS_COMMANDS = "runs_commands"
    """It runs commands, which may touch anything (``bash``)."""


@dataclass(frozen=True, slots=True)
class ToolTraits:
    """What a tool declares about itself, beside its name, description and schema."""

    touches: Touches = Touches.NOTHING
    """What its calls touch."""
    asks_approval: bool = False
    """Whether a call waits for the user's permission (when the host has an approver)."""
    headline: tuple[str, ...] = ()
    """The arguments that say what a call does, shown in its header: the first, followed by
    each later one that is a string too (the fold tool's ``action`` then its ``id``)."""
    position: int | None = None
    """Where it stands in the tool list the model is given (Pi's order for Pi's seven);
    ``None`` lists it after the positioned tools, by name. The fold tool is always last."""
    in_default_set: bool = False
    """Whether it is in Pi's default active set."""

    @property
    def read_only(self) -> bool:
        """Whether its calls only read (Pi's read-only set)."""
        return self.touches in (Touches.READS_FILE, Touches.SEARCHES)


PLAIN_TRAITS = ToolTraits()
"""The traits of a tool that declares none."""


class Tool(Protocol):
    """One tool the model can call."""

    @property
    def name(self) -> str:
        """The name the model calls it by; unique among the agent's tools."""
        ...

    @property
    def description(self) -> str:
        """What the model is told the tool does."""
        ...

    @property
    def parameters(self) -> dict[str, JsonValue]:
        """A JSON schema object for the arguments."""
        ...

    async def run(self, arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
        """Run one call. Cancellation means the user aborted (see the module docstring)."""
        ...


class TouchesFiles(Protocol):
    """The optional member of a tool that touches files (read, write, edit, ls, ...)."""

    def footprint(self, arguments: dict[str, JsonValue], cwd: Path) -> Footprint:
        """The files a call with these arguments may touch; an empty :class:`Footprint`
        when the arguments name none (the call will fail on them anyway). Cheap and pure:
        no file is opened."""
        ...


__all__ = [
    "PLAIN_TRAITS",
    "Footprint",
    "Tool",
    "ToolContext",
    "ToolCrash",
    "ToolOutcome",
    "ToolTraits",
    "Touches",
    "TouchesFiles",
]
