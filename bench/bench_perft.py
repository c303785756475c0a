"""Perft speed: enoch's rules core against python-chess, in one run on the same machine.

Two measures, as the issue asks:
  * make/unmake at every node (each leaf is made and unmade; the cost a search pays),
  * bulk counting at the last ply (leaves counted, not made; python-chess: legal_moves.count()).

Run:  python bench/bench_perft.py            (start position d4, d5; Kiwipete d3, d4)
      python bench/bench_perft.py --quick    (d4 / d3 only)
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial

import chess

from enoch.rules import Position, perft, perft_bulk

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def pc_perft(board: chess.Board, depth: int) -> int:
    if depth == 0:
        return 1
    n = 0
    for move in board.legal_moves:
        board.push(move)
        n += pc_perft(board, depth - 1)
        board.pop()
    return n


def pc_perft_bulk(board: chess.Board, depth: int) -> int:
    if depth == 1:
        return board.legal_moves.count()
    n = 0
    for move in board.legal_moves:
        board.push(move)
        n += pc_perft_bulk(board, depth - 1)
        board.pop()
    return n


def timed(fn: Callable[[], int]) -> tuple[int, float]:
    start = time.perf_counter()
    n = fn()
    return n, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    cases = [("start", chess.STARTING_FEN, 4), ("kiwipete", KIWIPETE, 3)]
    if not args.quick:
        cases += [("start", chess.STARTING_FEN, 5), ("kiwipete", KIWIPETE, 4)]
    print(f"python-chess {chess.__version__}")
    header = f"{'position':<10} {'d':>2} {'mode':<12} {'nodes':>10} {'enoch n/s':>12}"
    print(header + f" {'p-c n/s':>12}  ratio")
    modes = (("make/unmake", perft, pc_perft), ("bulk", perft_bulk, pc_perft_bulk))
    for name, fen, depth in cases:
        for mode, ours, theirs in modes:
            n1, t1 = timed(partial(ours, Position.from_fen(fen), depth))
            n2, t2 = timed(partial(theirs, chess.Board(fen), depth))
            assert n1 == n2, (name, depth, mode, n1, n2)
            print(
                f"{name:<10} {depth:>2} {mode:<12} {n1:>10} {n1 / t1:>12,.0f} {n2 / t2:>12,.0f} "
                f"{t2 / t1:>5.1f}x",
                flush=True,
            )


if __name__ == "__main__":
    main()
