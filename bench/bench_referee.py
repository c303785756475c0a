"""Referee throughput: complete games between two in-process random agents, every rule on.

Compares, in the same run and on one core:

- ``referee``: :func:`enoch.arena.play_game` between ``builtin:random`` agents (each claims a
  draw whenever a claim is valid, so the referee checks claims; automatic endings, draw offers,
  clocks off) -- what a match of in-process agents costs per game;
- ``python-chess``: a bare python-chess loop doing the same rules work: a random legal move
  and ``board.outcome(claim_draw=True)`` each ply.

Then the referee's scaling with ``--concurrency 2`` (worker processes) against 1.

    python bench/bench_referee.py [--seconds 10] [--games 300]
"""

from __future__ import annotations

import argparse
import random
import time

import chess

from enoch.arena import play_game
from enoch.arena.match import ScheduledGame, run_schedule
from enoch.game import Start
from enoch.openings import Opening


def python_chess_games(seconds: float) -> tuple[float, float]:
    rng = random.Random(1)
    games = plies = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        board = chess.Board()
        while board.outcome(claim_draw=True) is None:
            board.push(rng.choice(list(board.legal_moves)))
            plies += 1
        games += 1
    dt = time.perf_counter() - t0
    return games / dt, plies / games


def referee_games(seconds: float) -> tuple[float, float, dict[str, int]]:
    games = plies = 0
    terms: dict[str, int] = {}
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        r = play_game(f"builtin:random?seed={2 * games}", f"builtin:random?seed={2 * games + 1}")
        games += 1
        plies += r.plies
        terms[r.termination] = terms.get(r.termination, 0) + 1
    dt = time.perf_counter() - t0
    return games / dt, plies / games, terms


def scaling(games: int) -> dict[int, float]:
    start = Start("start", Opening("start"))
    schedule = [ScheduledGame(i + 1, (i % 2, 1 - i % 2), start) for i in range(games)]
    out = {}
    for k in (1, 2):
        t0 = time.perf_counter()
        run_schedule(["builtin:random", "builtin:random"], schedule, concurrency=k)
        out[k] = games / (time.perf_counter() - t0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=10.0, help="per measurement")
    ap.add_argument("--games", type=int, default=300, help="games per scaling measurement")
    args = ap.parse_args()
    pc_rate, pc_plies = python_chess_games(args.seconds)
    ref_rate, ref_plies, terms = referee_games(args.seconds)
    print(f"python-chess loop : {pc_rate:8.1f} games/s  ({pc_plies:.0f} plies/game)")
    print(f"enoch referee     : {ref_rate:8.1f} games/s  ({ref_plies:.0f} plies/game)")
    print(f"ratio             : {ref_rate / pc_rate:8.1f}x   (target >= 10x)")
    print("referee endings   : " + ", ".join(f"{k} {v}" for k, v in sorted(terms.items())))
    rates = scaling(args.games)
    print(
        f"concurrency 1     : {rates[1]:8.1f} games/s   concurrency 2: {rates[2]:.1f} games/s"
        f"   speed-up {rates[2] / rates[1]:.2f}x  ({args.games} games each, worker start-up "
        "included)"
    )


if __name__ == "__main__":
    main()
