"""Question probes: does a search with a question's distinctive words find its answer?

Issue 21 asks that, for a question whose answer was folded away, a search with the
question's distinctive words finds the answer's fold among the top three hits. Planted values
(:mod:`pifold_bench.recall`) test that for exact keys; these probes test it for questions a
person asks in their own words: "Which port did the dev server listen on?" when the folded
result says ``listening on 0.0.0.0:5173``.

The probes (``question_probes.json`` beside this module) were written by reading the bundled
traces, without running the search on them: each names its trace, the question, every entry
that states the answer, and the answer's exact text in the first of them (a test checks that
it is there). Each trace is replayed through the engine at a small budget
(:data:`PROBE_BUDGET`), so most of it is folded; a probe whose answers are all still raw in
the window at the end is not asked (the model can see them), and is counted as such.

The query is the question's words less the common words of English questions
(:data:`COMMON_WORDS`): what the question names, not how it asks.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pifold_agent.bundled_traces import bundled_trace
from pifold_agent.importers.detect import load_trace
from pifold_core.engine import Engine
from pifold_core.options import EngineOptions
from pifold_core.search import parse_query

PROBES_PATH = Path(__file__).with_name("question_probes.json")
"""The probes shipped with the bench."""

PROBE_BUDGET = 8_000
"""Token budget of each replay: small, so a trace's older part is folded, as in a long
session."""

TOP = 3
"""A probe is found when one of its answers is among this many best hits."""

_COMMON_TEXT = """
a about after all also am an and any are as at be been before being
both but by can could did do does doing done during each else for from had
has have having he her here him his how i if in into is it its
itself just me more most my no not now of on once only or other our
out over own same she should so some such than that the their them then there
these they this those through to too under until up very was we were what when
where which while who whom why will with would you your first last time times use
used using get got make made happen happened tell show say said know
"""

COMMON_WORDS = frozenset(_COMMON_TEXT.split())
"""Words of how a question asks, not of what it asks about: never searched for."""

_WORD = re.compile(r"[\w./:-]+")
"""A question's words: letters, digits and the punctuation inside names (``src/app.py``,
``0.0.0.0:5173``, ``--verbose``)."""


@dataclass(frozen=True, slots=True)
class QuestionProbe:
    """One question over one bundled trace."""

    trace: str
    """The bundled trace's folder name."""
    question: str
    """The question as a person asks it."""
    answers: tuple[str, ...]
    """Every entry that states the answer."""
    answer_text: str
    """The answer's exact text in the first of :attr:`answers`."""
    style: str
    """``verbatim`` (the question names words the answer holds) or ``paraphrase``."""


@dataclass(frozen=True, slots=True)
class ProbeOutcome:
    """What the search did with one probe."""

    probe: QuestionProbe
    query: str
    """What was searched for (:func:`distinctive_words`)."""
    asked: bool
    """A fold holds at least one answer (out of sight): the probe counts."""
    rank: int | None
    """The best hit's rank that is an answer (1 is first), ``None``: no hit is one."""
    total: int
    """Hits the search found."""
    any_term: bool
    """No entry held every word: entries holding any of them were ranked."""

    @property
    def found(self) -> bool:
        """An answer is among the top :data:`TOP` hits."""
        return self.rank is not None and self.rank <= TOP


def load_probes(path: Path = PROBES_PATH) -> list[QuestionProbe]:
    """The probes of ``path``."""
    records = json.loads(path.read_text(encoding="utf-8"))
    return [
        QuestionProbe(
            str(record["trace"]),
            str(record["question"]),
            tuple(str(answer) for answer in record["answers"]),
            str(record["answer_text"]),
            str(record["style"]),
        )
        for record in records
    ]


def distinctive_words(question: str) -> str:
    """The query for ``question``: its words but :data:`COMMON_WORDS`, in order, each once;
    punctuation at a word's edges (``policy?``, ``"main"``) dropped."""
    kept: dict[str, None] = {}
    for word in _WORD.findall(question):
        word = word.strip(".:-/")
        if word and word.lower() not in COMMON_WORDS:
            kept.setdefault(word, None)
    return " ".join(kept)


def run_probes(
    probes: Sequence[QuestionProbe],
    budget: int = PROBE_BUDGET,
    after: Callable[[Engine], None] | None = None,
) -> list[ProbeOutcome]:
    """Replay each trace the probes name once, then ask its probes; ``after`` is shown each
    engine once its probes are asked, before it closes (a test checks its wire audit)."""
    outcomes: list[ProbeOutcome] = []
    with tempfile.TemporaryDirectory(prefix="pifold-question-probes-") as folder:
        for trace in dict.fromkeys(probe.trace for probe in probes):
            engine = _replayed(trace, budget, Path(folder) / trace)
            try:
                outcomes.extend(_ask(engine, probe) for probe in probes if probe.trace == trace)
                if after is not None:
                    after(engine)
            finally:
                engine.close()
    return outcomes


def _replayed(trace: str, budget: int, state: Path) -> Engine:
    """An engine that has replayed the bundled ``trace`` as a host drives it."""
    engine = Engine.open(state, EngineOptions(budget=budget))
    for entry in load_trace(bundled_trace(trace)).entries:
        if entry.kind == "assistant":
            engine.prepare_request()
        engine.append(entry)
    engine.prepare_request()
    return engine


def _ask(engine: Engine, probe: QuestionProbe) -> ProbeOutcome:
    query = distinctive_words(probe.question)
    results = engine.search(parse_query(query, limit=50))
    ranked = [hit.entry for hit in results.hits]
    rank = next((place for place, entry in enumerate(ranked, 1) if entry in probe.answers), None)
    asked = _folded(engine, probe.answers)
    return ProbeOutcome(probe, query, asked, rank, results.total, results.any_term)


def _folded(engine: Engine, entry_ids: Iterable[str]) -> bool:
    """Whether a fold holds any of ``entry_ids`` (the question's answer is out of sight)."""
    transcript = engine.view.transcript
    places = [transcript.index_of[entry_id] for entry_id in entry_ids]
    return any(
        root.start <= place < root.end for root in engine.view.forest.roots() for place in places
    )


__all__ = [
    "COMMON_WORDS",
    "PROBES_PATH",
    "PROBE_BUDGET",
    "TOP",
    "ProbeOutcome",
    "QuestionProbe",
    "distinctive_words",
    "load_probes",
    "run_probes",
]
