"""Where a hand-edited session file and the engine's log disagree, and which one wins.

Every message is written twice: to the session file (Pi's format, the user's record) and to
the engine's log (what the model was sent, and what the folds' hashes and the provider's
prompt cache are built on). A person may edit the session file by hand; the log is not
meant to be edited. On reopen the two are compared over the messages both hold:

* **edited**: the same entry id holds different bytes;
* **missing**: an entry the log holds is not on the session file's current branch (its line
  was deleted, or moved so that it left the branch);
* **reordered**: entries both hold appear in another order;
* **inserted**: the session holds a message the log lacks before the log's last one.

**The rule: the engine's log wins**, for everything the model is sent. It is the record of
the bytes already sent: the cache invariant (DESIGN §4) allows them to change only at a
commit or an attributed verb, and a fold's source is verified against the digest the log
keeps, so letting an edit through would rewrite the cached prefix without attribution and
break the folds that cover the entry. The session file is left exactly as the user made it
(it is append-only; nothing is rewritten), the new messages of the run are appended to it as
usual, and the disagreement is said in one warning line naming the first entry that differs
and the rule, on every open until the two agree again; it is never silent. A refusal would
leave the session unusable over an edit the model never needed to see; a new branch would
copy entries whose ids the file already holds. To make the model see an edited history,
start a new session from it.

Two differences are not disagreements: a large tool result the engine keeps as a preview
with its whole original in the evidence store (the original's digest is the evidence id),
and the engine's own notice entries (never in the session file).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import Literal

from pifold_agent.loop.messages import in_context
from pifold_agent.sessions.session_file import SessionFile
from pifold_core.engine import Engine
from pifold_core.entries import Entry
from pifold_core.evidence import evidence_id

DisagreementKind = Literal["edited", "missing", "reordered", "inserted"]

RULE = (
    "the engine's log wins (it holds the bytes the model was sent, which the prompt cache "
    "and the folds depend on), so the model does not see the change; start a new session "
    "to change what the model sees"
)
"""The rule, as the warning says it."""

_WHAT = {
    "edited": "was edited in the session file",
    "missing": "is in the engine's log but not on the session file's current branch "
    "(deleted or moved)",
    "reordered": "is out of the engine's log's order in the session file",
    "inserted": "is in the session file but not in the engine's log (added by hand before "
    "its end), so it is not sent",
}


@dataclass(frozen=True, slots=True)
class Disagreement:
    """How a session file and its engine's log differ."""

    kind: DisagreementKind
    """What the first difference is."""
    entry_id: str
    """The first entry that differs."""
    line: int | None
    """Its line in the session file (``None``: the file no longer holds it)."""
    count: int
    """How many entries differ in all."""

    def describe(self, session: SessionFile) -> str:
        """One line naming the entry, what happened to it and the rule."""
        where = f" (line {self.line})" if self.line is not None else ""
        more = f", and {self.count - 1:,} more entries differ" if self.count > 1 else ""
        return (
            f"session file {session.path} disagrees with the engine's log: entry "
            f"{self.entry_id}{where} {_WHAT[self.kind]}{more}; {RULE}"
        )


def compare_with_log(session: SessionFile, engine: Engine) -> Disagreement | None:
    """The first place where ``session``'s current branch and ``engine``'s log disagree
    about a message, with the count of all; ``None`` when they agree. Reads the log's facts
    only (no folded entry is read back)."""
    recorded = [entry for entry in session.messages() if in_context(entry)]
    position = {entry.id: index for index, entry in enumerate(recorded)}
    logged = engine.view.transcript.entries
    found: list[tuple[DisagreementKind, str]] = []
    common: list[int] = []
    for index in range(len(logged)):
        facts = logged.facts_of(index)
        at = position.get(facts.id)
        if at is None:
            if facts.kind != "note":  # the engine's own notices never reach the file
                found.append(("missing", facts.id))
            continue
        common.append(at)
        entry = recorded[at]
        if facts.digest != entry.digest and not _kept_as_evidence(entry, engine, index):
            found.append(("edited", facts.id))
    for earlier, later in pairwise(common):
        if later < earlier:
            found.append(("reordered", recorded[later].id))
    if common:  # what follows the log's last message is a tail the catch-up appends
        known = {logged.facts_of(index).id for index in range(len(logged))}
        before = recorded[: max(common)]
        found += [("inserted", entry.id) for entry in before if entry.id not in known]
    if not found:
        return None
    kind, entry_id = found[0]
    return Disagreement(kind, entry_id, session.line_of(entry_id), len(found))


def _kept_as_evidence(entry: Entry, engine: Engine, index: int) -> bool:
    """Whether the engine keeps ``entry`` as the preview of an evidence artifact holding
    exactly its bytes, or (past the evidence cap) as a preview with no original kept, which
    leaves nothing to compare."""
    if entry.kind != "tool_result":
        return False
    if evidence_id(entry.digest) in engine.view.evidence_ids:
        return True
    evidence = engine.view.transcript.entries[index].extra.get("evidence")
    return isinstance(evidence, dict) and evidence.get("id") is None


__all__ = ["RULE", "Disagreement", "DisagreementKind", "compare_with_log"]
