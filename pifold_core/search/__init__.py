"""Full-text search over a session's folded history (issue 21, DESIGN §7 ``search``).

- :mod:`~pifold_core.search.text`: what of an entry is searchable (text, tools, paths).
- :mod:`~pifold_core.search.index`: the SQLite FTS5 file beside the store.
- :mod:`~pifold_core.search.query`: the query language, checked before anything runs.
- :mod:`~pifold_core.search.snippets`: snippets cut from verified bytes.
- :mod:`~pifold_core.search.rebuild`: what the index holds, from the forest and the log.
- :mod:`~pifold_core.search.searcher`: ranked words and the bounded regex scan.
- :mod:`~pifold_core.search.session`: the upkeep at each commit, checks and rebuilds.
- :mod:`~pifold_core.search.suggestions`: the folds related to the fresh tail, at a commit.
"""

from pifold_core.search.index import INDEX_NAME
from pifold_core.search.query import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    SearchError,
    SearchQuery,
    parse_query,
)
from pifold_core.search.results import SearchHit, SearchResults
from pifold_core.search.session import SessionSearch

__all__ = [
    "DEFAULT_LIMIT",
    "INDEX_NAME",
    "MAX_LIMIT",
    "SearchError",
    "SearchHit",
    "SearchQuery",
    "SearchResults",
    "SessionSearch",
    "parse_query",
]
