"""Enochian chess: the four-army Golden Dawn game (Zalewski's rules by default).

Public surface: the arrays (:func:`available_arrays`, :func:`find_array`), a game built from
an array, direction, rule options and controllers (:func:`new_game` -> :class:`State`), and the
referee (:func:`play_game`, :func:`play_match`). Details in ``docs/enochian.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enoch._lazy import lazy_getattr

if TYPE_CHECKING:
    from enoch.arena.referee import GameResult
    from enoch.enochian.referee import play_game, play_match
    from enoch.enochian.spec import ArraySpec, RuleOptions, available_arrays, find_array
    from enoch.enochian.state import Outcome, State, new_game

# Imported on first use (see enoch._lazy): the part's cli must not pay for the whole part.
_LAZY = {
    "ArraySpec": "enoch.enochian.spec",
    "GameResult": "enoch.arena.referee",
    "Outcome": "enoch.enochian.state",
    "RuleOptions": "enoch.enochian.spec",
    "State": "enoch.enochian.state",
    "available_arrays": "enoch.enochian.spec",
    "find_array": "enoch.enochian.spec",
    "new_game": "enoch.enochian.state",
    "play_game": "enoch.enochian.referee",
    "play_match": "enoch.enochian.referee",
}


__getattr__ = lazy_getattr(__name__, _LAZY)

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
