"""``enoch perft``: move-path counts, the standard check of a move generator."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser(
        "perft",
        help="count move paths from a position (node count alone on the last line)",
        description="Count the leaf nodes of the legal move tree to DEPTH. The last line of "
        "output is the node count alone.",
    )
    p.add_argument("fen", metavar="FEN", help='a FEN string (quote it), or "startpos"')
    from enoch._numbers import arg

    p.add_argument("depth", metavar="DEPTH", type=arg("int", 0), help="0 to 12")
    p.add_argument("--divide", action="store_true", help="print the count below each root move")
    p.add_argument("--stats", action="store_true", help="print time and nodes/second to stderr")
    p.set_defaults(func=_perft)


def _perft(args: argparse.Namespace) -> int:
    import sys
    import time

    from enoch.errors import InputError
    from enoch.rules import MAX_PERFT_DEPTH, Position, divide, perft_bulk

    if args.depth > MAX_PERFT_DEPTH:
        raise InputError(f"DEPTH must be at most {MAX_PERFT_DEPTH}, got {args.depth}")
    pos = Position.from_fen(args.fen)
    start = time.perf_counter()
    if args.divide and args.depth > 0:
        rows = divide(pos, args.depth)
        for move, count in rows:
            print(f"{move}: {count}")
        total = sum(c for _, c in rows)
        print()
    else:
        total = perft_bulk(pos, args.depth)
    elapsed = time.perf_counter() - start
    if args.stats:
        nps = total / elapsed if elapsed > 0 else float("inf")
        sys.stderr.write(
            f"perft {args.depth}: {total} nodes in {elapsed:.3f} s ({nps:,.0f} nodes/s)\n"
        )
    print(total)
    return 0
