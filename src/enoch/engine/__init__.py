"""enoch's own chess engine: search, evaluation, time management and its two front ends
(:class:`enoch.engine.agent.EngineAgent` for the JSON protocol, :mod:`enoch.engine.uci`)."""

from enoch.engine.search import Limits, Searcher, SearchResult

__all__ = ["Limits", "SearchResult", "Searcher"]
