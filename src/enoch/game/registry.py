"""Games found by name: registered in-process or declared as ``enoch.games`` entry points.

The arena (below the games) must never import a game's module by name, or the layers would
point upward. So a game package declares itself in ``pyproject.toml``::

    [project.entry-points."enoch.games"]
    chess = "enoch.fide.game:ChessGame"

and :func:`find_game` loads it the first time it is asked for; another package can add a game
the same way, or a test can :func:`register_game` one directly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from enoch.errors import InputError

if TYPE_CHECKING:
    from enoch.game.api import Game

GROUP = "enoch.games"
_GAMES: dict[str, Game] = {}
_ALIASES = {"fide": "chess", "standard": "chess"}


def register_game(game: Game) -> Game:
    """Make ``game`` findable by its name (replacing one of the same name)."""
    _GAMES[game.name] = game
    return game


def _entry_points() -> dict[str, Any]:
    from importlib import metadata  # 15 ms to import: only when a game is first looked up

    return {ep.name: ep for ep in metadata.entry_points(group=GROUP)}


def game_names() -> list[str]:
    """Every game that can be found: registered ones and declared ones."""
    return sorted(set(_GAMES) | set(_entry_points()))


def find_game(name: str) -> Game:
    """The game called ``name`` (``chess``, ``enochian``, ...); InputError if there is none."""
    key = _ALIASES.get(name.strip().lower(), name.strip().lower())
    game = _GAMES.get(key)
    if game is not None:
        return game
    ep = _entry_points().get(key)
    if ep is None:
        known = ", ".join(game_names()) or "none installed"
        raise InputError(f"unknown variant {name[:40]!r} (known: {known})")
    cls = ep.load()
    return register_game(cls() if isinstance(cls, type) else cls)
