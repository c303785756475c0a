"""The referee and the arena: games, matches and tournaments between agents of every kind.

Public surface: :func:`play_game` (one game, any two agents), :class:`GameConfig`,
:class:`GameResult`, :func:`make_player`, :class:`TimeControl`, and (in
:mod:`enoch.arena.match`) :func:`run_match` / :func:`run_tournament`. The transports in
:mod:`enoch.arena.transport` know nothing of chess and serve the Enochian referee as well.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enoch._lazy import lazy_getattr

if TYPE_CHECKING:
    from enoch.arena.clock import TimeControl
    from enoch.arena.players import Player, make_player
    from enoch.arena.referee import TERMINATIONS, GameConfig, GameResult, Referee, play_game

# Imported on first use (see enoch._lazy): the part's cli must not pay for the whole part.
_LAZY = {
    "GameConfig": "enoch.arena.referee",
    "GameResult": "enoch.arena.referee",
    "Player": "enoch.arena.players",
    "Referee": "enoch.arena.referee",
    "TERMINATIONS": "enoch.arena.referee",
    "TimeControl": "enoch.arena.clock",
    "make_player": "enoch.arena.players",
    "play_game": "enoch.arena.referee",
}


__getattr__ = lazy_getattr(__name__, _LAZY)

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
