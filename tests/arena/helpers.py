"""Shared helpers of the arena tests: scripted agents, schema checks, leak checks.

Every game played through :func:`run` validates every state the referee sends against the
shipped JSON Schema, writes its PGN and parses it back with python-chess, and checks that no
process of the agents is left alive.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import jsonschema

from enoch.arena import GameConfig, GameResult, make_player, play_game
from enoch.fide.game import TERMINATIONS as CHESS_TERMINATIONS
from enoch.fide.records import pgn_text, read_pgn_games
from enoch.game import REFEREE_TERMINATIONS
from enoch.protocol import schema
from tests.processes import group_alive

TERMINATIONS = CHESS_TERMINATIONS + REFEREE_TERMINATIONS

AGENTS = Path(__file__).parent / "agents"
SCRIPT = AGENTS / "scripted.py"
MARKERS = (str(AGENTS), "time.sleep(3600)")
_VALIDATOR = jsonschema.Draft202012Validator(schema("state"))


def exec_agent(plan: dict[str, Any] | None = None) -> str:
    return f"exec:{sys.executable} {SCRIPT} '{json.dumps(plan or {})}'"


def jsonl_agent(plan: dict[str, Any] | None = None) -> str:
    return f"jsonl:{sys.executable} {SCRIPT} --jsonl '{json.dumps(plan or {})}'"


def pgids_of(player: Any) -> list[int]:
    transport = getattr(player, "transport", None)
    if transport is not None:
        return list(transport.pgids)
    return list(getattr(player, "pgids", []))


def run(
    white: Any,
    black: Any,
    *,
    start_fen: str | None = None,
    config: GameConfig | None = None,
    book: tuple[str, ...] = (),
) -> tuple[GameResult, list[dict[str, Any]]]:
    """Play a game with every check on; returns the result and the event log."""
    events: list[dict[str, Any]] = []
    players = [make_player(white), make_player(black)]
    kwargs: dict[str, Any] = {}
    if start_fen is not None:
        kwargs["start_fen"] = start_fen
    result = play_game(
        players[0],
        players[1],
        config=config or GameConfig(timeout=20),
        log=events.append,
        book_moves=book,
        **kwargs,
    )
    for e in events:
        if e["event"] == "state":
            errors = list(_VALIDATOR.iter_errors(e["state"]))
            assert not errors, errors[0].message
    for p in players:
        for pgid in pgids_of(p):
            assert not group_alive(pgid), f"process group {pgid} of {p.name} survived"
    games = read_pgn_games(pgn_text(result))
    assert len(games) == 1
    game = games[0]
    assert [m.uci() for m in game.mainline_moves()] == result.moves
    assert game.headers["Result"] == result.result
    assert game.headers["EnochTermination"] == result.termination
    assert result.termination in TERMINATIONS
    return result, events
