"""Session files: Pi's JSONL tree format under ``~/.pifold/sessions/<project>/``.

Layout (``PIFOLD_HOME`` replaces ``~/.pifold``; every call takes ``sessions_dir`` to use
another folder)::

    ~/.pifold/sessions/--srv-work-proj--/2026-12-01T20-00-00-000Z_<uuid>.jsonl   (0600)
    ~/.pifold/sessions/--srv-work-proj--/2026-12-01T20-00-00-000Z_<uuid>.pi-fold/ (0700,
                                                               the engine's state folder)

API:

* ``SessionFile.create(cwd, sessions_dir=None)``: a new session for a working directory;
  the file appears with the first append.
* ``SessionFile.open(path)``, ``open_session(path_or_id_prefix, cwd)``: an existing one.
* ``latest_for(cwd)``: the most recently modified session of ``cwd`` (``--continue``), or
  None. ``find(id_prefix, cwd)``: by id prefix, ``cwd``'s sessions first, then all
  (``--resume``). ``list_sessions(cwd=None)``: summaries, newest first.
* ``session.record(entry)`` (alias ``append_message``): one ``message`` line, written before
  it returns, so before the loop appends the entry to the engine. ``session.sync()``: fsync,
  at every turn end. ``session.append_compaction(summary, first_kept_entry_id,
  tokens_before, details)``: Pi's ``compaction`` entry, fsynced.
* ``session.messages()`` (and ``recorded()``, the loop's ``SessionRecorder``): the messages
  on the current branch as :class:`pifold_core.entries.Entry` values, exactly as recorded.
  ``session.context()``: what the model sees under native compaction (the latest summary
  and the kept messages). ``session.latest_compaction()``, ``session.state_directory``,
  ``session.id``, ``session.cwd``, ``session.taken_ids``.
* ``session.problems``: lines skipped on reading (corrupt, torn or unreadable), each with its
  line number and reason. They are reported, never fatal.
* One writer per session file, whatever the mode: ``session.claim()`` (hosts call it as they
  open a session to run in; the first append takes it too) holds ``<state>/session-lock``
  until ``session.close()``; a second writer gets :class:`SessionBusy`, naming the holder.
  Reading needs no lock. A FIFO, device or folder at a session's path is refused unopened.
* ``agreement.compare_with_log(session, engine)``: where a hand edit of the file and the log
  disagree about an entry (the log wins; see :mod:`pifold_agent.sessions.agreement`).

The files are plain Pi tree sessions, so ``pifold replay`` (the Pi importer) reads them too.
"""

from __future__ import annotations

from pifold_agent.sessions.catalogue import (
    SessionSummary,
    find,
    latest_for,
    list_sessions,
    open_session,
)
from pifold_agent.sessions.errors import SessionBusy, SessionError
from pifold_agent.sessions.paths import (
    HOME_VARIABLE,
    pifold_home,
    project_directory,
    sessions_root,
    state_directory,
)
from pifold_agent.sessions.pi_format import CompactionRecord
from pifold_agent.sessions.reading import LineProblem
from pifold_agent.sessions.session_file import SessionFile

__all__ = [
    "HOME_VARIABLE",
    "CompactionRecord",
    "LineProblem",
    "SessionBusy",
    "SessionError",
    "SessionFile",
    "SessionSummary",
    "find",
    "latest_for",
    "list_sessions",
    "open_session",
    "pifold_home",
    "project_directory",
    "sessions_root",
    "state_directory",
]
