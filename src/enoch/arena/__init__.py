"""The arena: one referee, one player layer, one schedule and one set of records for every game.

Public surface: :func:`play_game` (one game of any variant between any agents),
:class:`GameConfig`, :class:`GameResult`, :func:`make_player`, :class:`TimeControl`, and (in
:mod:`enoch.arena.match`) :func:`run_match` / :func:`run_tournament`. Nothing here knows a
game's rules: games plug in through :mod:`enoch.game` and are found by name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enoch._lazy import lazy_getattr

if TYPE_CHECKING:
    from enoch.arena.clock import TimeControl
    from enoch.arena.players import Player, make_player
    from enoch.arena.referee import GameConfig, GameResult, Referee, play_game

# Imported on first use (see enoch._lazy): the part's cli must not pay for the whole part.
_LAZY = {
    "GameConfig": "enoch.arena.referee",
    "GameResult": "enoch.arena.referee",
    "Player": "enoch.arena.players",
    "Referee": "enoch.arena.referee",
    "TimeControl": "enoch.arena.clock",
    "make_player": "enoch.arena.players",
    "play_game": "enoch.arena.referee",
}


__getattr__ = lazy_getattr(__name__, _LAZY)

__all__ = [
    "GameConfig",
    "GameResult",
    "Player",
    "Referee",
    "TimeControl",
    "make_player",
    "play_game",
]
