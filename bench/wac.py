"""Win At Chess: how many of the 300 positions enoch solves at a fixed time per position.

Usage::

    python bench/wac.py [--movetime 1.0] [--first N] [--hash 16] [--threads 1]
    python bench/wac.py --nodes 90000          # a node budget instead: same count on any machine

A timed run depends on the machine and its load (positions solved near the deadline flip from
run to run); with ``--nodes`` (one thread) the search is deterministic, so two engine versions
compare exactly and a figure can be checked anywhere.

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
    ap.add_argument(
        "--nodes", type=int, default=0, help="node budget per position instead of a time (1 thread)"
    )
    ap.add_argument("--first", type=int, default=300)
    ap.add_argument("--hash", type=float, default=16, help="MiB (16: the UCI default)")
    ap.add_argument("--threads", type=int, default=1, help="processes searching (lazy SMP)")
    ap.add_argument("--epd", default=str(EPD))
    args = ap.parse_args()
    if args.nodes and args.threads != 1:
        ap.error("--nodes searches with one thread (a parallel search is not deterministic)")
    sys.path.insert(0, str(ROOT / "src"))
    from enoch.engine.search import Limits
    from enoch.engine.smp import parallel_searcher
    from enoch.rules import Position, move_uci

    searcher = parallel_searcher(args.hash, args.threads)
    limits = Limits(nodes=args.nodes) if args.nodes else Limits(movetime=args.movetime)
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
        r = searcher.think(pos, limits, overhead=0.0)
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
    budget = f"{args.nodes} nodes" if args.nodes else f"{args.movetime} s"
    print(
        f"WAC: {solved}/{total} solved at {budget} per position "
        f"({elapsed:.0f} s, {nodes / elapsed:.0f} nps, threads {args.threads})"
    )
    searcher.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
