"""Shared helpers of the arena tests: scripted agents, schema checks, leak checks.

Every game played through :func:`run` validates every state the referee sends against the
shipped JSON Schema, writes its PGN and parses it back with python-chess, and checks that no
process of the agents is left alive.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import jsonschema

from enoch.arena import TERMINATIONS, GameConfig, GameResult, make_player, play_game
from enoch.arena.records import pgn_text, read_pgn_games
from enoch.protocol import schema

AGENTS = Path(__file__).parent / "agents"
SCRIPT = AGENTS / "scripted.py"
MARKERS = (str(AGENTS), "time.sleep(3600)")
_VALIDATOR = jsonschema.Draft202012Validator(schema("state"))


def exec_agent(plan: dict[str, Any] | None = None) -> str:
    return f"exec:{sys.executable} {SCRIPT} '{json.dumps(plan or {})}'"


def jsonl_agent(plan: dict[str, Any] | None = None) -> str:
    return f"jsonl:{sys.executable} {SCRIPT} --jsonl '{json.dumps(plan or {})}'"


def live_processes(markers: tuple[str, ...] = MARKERS) -> list[tuple[int, str]]:
    """Non-zombie processes whose command line contains a marker of our test agents."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
            with open(f"/proc/{entry}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and any(m in cmd for m in markers):
            found.append((int(entry), cmd))
    return found


def group_alive(pgid: int) -> bool:
    """Whether any non-zombie process is in process group ``pgid``."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


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
