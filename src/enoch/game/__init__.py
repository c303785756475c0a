"""The game API that every game of the arena implements (see :mod:`enoch.game.api`).

Nothing here knows chess: FIDE chess (:mod:`enoch.fide`) and Enochian chess
(:mod:`enoch.enochian`) plug in from above and are found by name with :func:`find_game`.
"""

from enoch.game.api import (
    FORFEITS,
    REFEREE_TERMINATIONS,
    REFUSAL_KINDS,
    Game,
    Outcome,
    Refusal,
    Setup,
    Start,
    State,
)
from enoch.game.options import OptionSpec, parse_options, parse_pairs
from enoch.game.registry import find_game, game_names, register_game

__all__ = [
    "FORFEITS",
    "REFEREE_TERMINATIONS",
    "REFUSAL_KINDS",
    "Game",
    "OptionSpec",
    "Outcome",
    "Refusal",
    "Setup",
    "Start",
    "State",
    "find_game",
    "game_names",
    "parse_options",
    "parse_pairs",
    "register_game",
]
