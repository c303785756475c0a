"""enoch's own chess engine: search, evaluation, time management and its two front ends
(:class:`enoch.engine.agent.EngineAgent` for the JSON protocol, :mod:`enoch.engine.uci`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from enoch._lazy import lazy_getattr

if TYPE_CHECKING:
    from enoch.engine.search import Limits, Searcher, SearchResult

# Imported on first use (see enoch._lazy): the part's cli must not pay for the whole part.
_LAZY = {
    "Limits": "enoch.engine.search",
    "SearchResult": "enoch.engine.search",
    "Searcher": "enoch.engine.search",
}


__getattr__ = lazy_getattr(__name__, _LAZY)

__all__ = [
    "Limits",
    "SearchResult",
    "Searcher",
]
