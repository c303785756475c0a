"""Enochian chess: the four-army Golden Dawn game (Zalewski's rules by default).

Public surface: the arrays (:func:`available_arrays`, :func:`find_array`), a game built from
an array, direction, rule options and controllers (:func:`new_game` -> :class:`State`), and the
referee (:func:`play_game`, :func:`play_match`). Details in ``docs/enochian.md``.
"""

from enoch.enochian.referee import GameResult, play_game, play_match
from enoch.enochian.spec import ArraySpec, RuleOptions, available_arrays, find_array
from enoch.enochian.state import Outcome, State, new_game

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
