"""Enochian chess: the four-army Golden Dawn game (Zalewski's rules by default).

Public surface: the arrays (:func:`available_arrays`, :func:`find_array`), a game built from
an array, direction, rule options and controllers (:func:`new_game` -> :class:`State`), and the
referee (:func:`play_game`, :func:`play_match`). Details in ``docs/enochian.md``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from enoch.enochian.referee import GameResult, play_game, play_match
    from enoch.enochian.spec import ArraySpec, RuleOptions, available_arrays, find_array
    from enoch.enochian.state import Outcome, State, new_game

# Imported on first use (PEP 562), so that importing a submodule such as the
# part's ``cli`` does not pay for the whole part: ``enoch`` must start fast.
_LAZY = {
    "ArraySpec": "enoch.enochian.spec",
    "GameResult": "enoch.enochian.referee",
    "Outcome": "enoch.enochian.state",
    "RuleOptions": "enoch.enochian.spec",
    "State": "enoch.enochian.state",
    "available_arrays": "enoch.enochian.spec",
    "find_array": "enoch.enochian.spec",
    "new_game": "enoch.enochian.state",
    "play_game": "enoch.enochian.referee",
    "play_match": "enoch.enochian.referee",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "ArraySpec",
    "GameResult",
    "Outcome",
    "RuleOptions",
    "State",
    "available_arrays",
    "find_array",
    "new_game",
    "play_game",
    "play_match",
]
