"""Win At Chess: how many of the 300 positions enoch solves at a fixed time per position.

Usage::

    python bench/wac.py [--movetime 1.0] [--first N] [--hash 16] [--threads 1]

A position is solved when the move played is one of the ``bm`` moves (or, for ``am``
positions, none of the ``am`` moves). The table is cleared between positions. SAN is read with
python-chess; the search is enoch's own.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import chess

ROOT = Path(__file__).resolve().parent.parent
EPD = ROOT / "tests" / "data" / "tactics" / "wac300.epd"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--movetime", type=float, default=1.0)
    ap.add_argument("--first", type=int, default=300)
    ap.add_argument("--hash", type=float, default=16, help="MiB (16: the UCI default)")
    ap.add_argument("--threads", type=int, default=1, help="processes searching (lazy SMP)")
    ap.add_argument("--epd", default=str(EPD))
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    from enoch.engine.search import Limits, Searcher
    from enoch.rules import Position, move_uci

    searcher = Searcher(args.hash, args.threads)
    solved = 0
    total = 0
    failed: list[str] = []
    t0 = time.perf_counter()
    nodes = 0
    lines = [line for line in Path(args.epd).read_text().splitlines() if line.strip()]
    for line in lines[: args.first]:
        board, ops = chess.Board.from_epd(line)
        pos = Position.from_fen(board.fen())
        searcher.clear()
        r = searcher.think(pos, Limits(movetime=args.movetime), overhead=0.0)
        nodes += r.nodes
        move = chess.Move.from_uci(move_uci(r.move))
        bm = ops.get("bm")
        am = ops.get("am")
        ok = (move in bm) if bm else (move not in am) if am else False
        total += 1
        if ok:
            solved += 1
        else:
            failed.append(f"{ops.get('id')} played {board.san(move)} (wanted {bm or am})")
    elapsed = time.perf_counter() - t0
    for f in failed:
        print("  not solved:", f)
    print(
        f"WAC: {solved}/{total} solved at {args.movetime} s per position "
        f"({elapsed:.0f} s, {nodes / elapsed:.0f} nps, threads {args.threads})"
    )
    searcher.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
