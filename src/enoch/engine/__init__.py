"""enoch's own chess engine: search, evaluation, time management and its two front ends
(:class:`enoch.engine.agent.EngineAgent` for the JSON protocol, :mod:`enoch.engine.uci`)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from enoch.engine.search import Limits, Searcher, SearchResult

# Imported on first use (PEP 562), so that importing a submodule such as the
# part's ``cli`` does not pay for the whole part: ``enoch`` must start fast.
_LAZY = {
    "Limits": "enoch.engine.search",
    "SearchResult": "enoch.engine.search",
    "Searcher": "enoch.engine.search",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "Limits",
    "SearchResult",
    "Searcher",
]
