"""``enoch analyse`` speed: moves judged per second at the default node budget.

The games are played first (not timed): ``builtin:engine?depth=2`` against
``builtin:engine?depth=3`` from a few openings, 80 plies at most, so that the positions are
ordinary middlegames rather than random-move chaos or a quick mate. Then every game is
analysed as ``enoch analyse`` does it (one engine search per position, the table kept through
a game), and the moves per second are printed; with ``--stockfish`` the same games are also
judged by Stockfish at the same node count, for scale (its nodes are much cheaper than ours).

    python bench/bench_analyse.py [--games 3] [--nodes 10000] [--stockfish]

A figure from a shared machine is only indicative: say so when quoting it.
"""

from __future__ import annotations

import argparse
import shutil
import time

import chess

from enoch.analysis import DEFAULT_NODES
from enoch.analysis.analyse import analyse_moves
from enoch.analysis.engines import make_evaluator
from enoch.arena import play_game

OPENINGS = ["e2e4 e7e5 g1f3", "d2d4 d7d5 c2c4", "e2e4 c7c5 g1f3", "c2c4 e7e5", "d2d4 g8f6"]


def games(n: int, max_plies: int) -> list[list[chess.Move]]:
    out = []
    for i in range(n):
        seats = ["builtin:engine?depth=2", "builtin:engine?depth=3"]
        if i % 2:
            seats.reverse()
        book = OPENINGS[i % len(OPENINGS)].split()
        r = play_game(*seats, book_moves=book, max_plies=max_plies)
        out.append([chess.Move.from_uci(m) for m in r.moves])
    return out


def judge(spec: str, nodes: int, played: list[list[chess.Move]]) -> tuple[int, float]:
    evaluator = make_evaluator(spec, nodes)
    moves = 0
    t0 = time.perf_counter()
    try:
        for game in played:
            analyse_moves(chess.Board(), game, evaluator)
            moves += len(game)
    finally:
        evaluator.close()
    return moves, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--nodes", type=int, default=DEFAULT_NODES)
    ap.add_argument("--max-plies", type=int, default=80)
    ap.add_argument("--stockfish", action="store_true", help="also judge with Stockfish")
    args = ap.parse_args()
    played = games(args.games, args.max_plies)
    print(f"{args.games} games, {sum(map(len, played))} moves, {args.nodes} nodes per position")
    engines = ["builtin:engine"]
    if args.stockfish:
        sf = shutil.which("stockfish") or shutil.which("/usr/games/stockfish")
        if sf is None:
            raise SystemExit("stockfish is not installed")
        engines.append(f"uci:{sf}?Threads=1&Hash=16")
    for spec in engines:
        moves, seconds = judge(spec, args.nodes, played)
        print(f"{spec:40} {moves / seconds:8.2f} moves/s  ({moves} moves in {seconds:.1f} s)")


if __name__ == "__main__":
    main()
