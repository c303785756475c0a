"""Time to depth: how much sooner a parallel search (``Threads``) reaches a fixed depth.

Usage::

    python bench/ttd.py --threads 1 --depth 8
    python bench/ttd.py --threads 2 --depth 8     # compare the times

Searches every ``--step``-th WAC position to ``--depth`` with a cleared table and prints the
wall time, the main search's nodes and all nodes (helpers included). Wall time, not CPU time:
the point of the helpers is the clock. Run on an idle machine with as many cores as threads.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EPD = ROOT / "tests" / "data" / "tactics" / "wac300.epd"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--step", type=int, default=15, help="every STEP-th WAC position")
    ap.add_argument("--hash", type=float, default=64)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    from enoch.engine.search import Limits
    from enoch.engine.smp import parallel_searcher
    from enoch.rules import Position

    lines = [line for line in EPD.read_text().splitlines() if line.strip()]
    searcher = parallel_searcher(args.hash, args.threads)
    searcher.think(Position.start(), Limits(depth=3))  # the helpers have started
    wall = 0.0
    main_nodes = all_nodes = 0
    for line in lines[:: args.step]:
        fen = " ".join(line.split()[:4]) + " 0 1"
        searcher.clear()
        t0 = time.perf_counter()
        r = searcher.think(Position.from_fen(fen), Limits(depth=args.depth), overhead=0.0)
        wall += time.perf_counter() - t0
        main_nodes += searcher.nodes
        all_nodes += r.nodes
    searcher.close()
    print(
        f"threads {args.threads}, depth {args.depth}, {len(lines[:: args.step])} positions: "
        f"{wall:.2f} s, main nodes {main_nodes}, all nodes {all_nodes}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
