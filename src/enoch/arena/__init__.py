"""The referee and the arena: games, matches and tournaments between agents of every kind.

Public surface: :func:`play_game` (one game, any two agents), :class:`GameConfig`,
:class:`GameResult`, :func:`make_player`, :class:`TimeControl`, and (in
:mod:`enoch.arena.match`) :func:`run_match` / :func:`run_tournament`. The transports in
:mod:`enoch.arena.transport` know nothing of chess and serve the Enochian referee as well.
"""

from enoch.arena.clock import TimeControl
from enoch.arena.players import Player, make_player
from enoch.arena.referee import TERMINATIONS, GameConfig, GameResult, Referee, play_game

__all__ = [
    "TERMINATIONS",
    "GameConfig",
    "GameResult",
    "Player",
    "Referee",
    "TimeControl",
    "make_player",
    "play_game",
]
