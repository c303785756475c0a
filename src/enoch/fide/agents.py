"""The built-in chess agents by name (``builtin:NAME``), kept apart from the game so that
``enoch agent`` can make one without importing the arena (its cold start is the cost of every
``exec:`` answer)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from enoch._builtins import make_from_table

#: name -> "module:Class"; each class takes its options as keyword strings
BUILTINS: dict[str, str] = {
    "random": "enoch.agents.simple:RandomAgent",
    "greedy": "enoch.agents.simple:GreedyAgent",
    "engine": "enoch.engine.agent:EngineAgent",
    "search": "enoch.engine.agent:EngineAgent",
    "microchess": "enoch.microchess.agent:MicroChessAgent",
}


def make_builtin(name: str, options: Mapping[str, str]) -> Any:
    """A built-in chess agent from its name and options."""
    return make_from_table(name, options, BUILTINS, "chess")
