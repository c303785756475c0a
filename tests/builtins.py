"""Built-in agents by name, as the arena makes them (scoped to a game)."""

from __future__ import annotations

from typing import Any

from enoch.arena.players import parse_builtin
from enoch.game import find_game


def make_builtin(spec: str, variant: str = "chess") -> Any:
    name, options = parse_builtin(spec)
    return find_game(variant).make_builtin(name, options)
