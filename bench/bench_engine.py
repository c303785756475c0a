"""Engine speed: nodes per second of enoch's search against Sunfish's on the same positions.

Usage::

    python bench/bench_engine.py [--movetime 1.0] [--sunfish-python /path/to/venv/bin/python]
    python bench/bench_engine.py --depth 7     # deterministic: nodes to reach depth 7

Each position of Bratko-Kopec (24, ``tests/data/tactics/bratko_kopec24.epd``) is searched for
``--movetime`` seconds by enoch (``Searcher.think``) and, with ``--sunfish-python``, by Sunfish
(its own ``Searcher.search`` driven by the same wall clock, in the interpreter of the venv it was
installed in). Both count nodes their own way: enoch counts every node of the main search and of
quiescence; Sunfish counts every call of ``bound``, its only node function (quiescence included).

With ``--depth N`` each position is searched to depth N instead (fresh 64 MiB table): the node
count is deterministic, so it compares versions of the search independently of machine load;
the time (and nps) still depends on the load.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EPD = ROOT / "tests" / "data" / "tactics" / "bratko_kopec24.epd"

SUNFISH_SNIPPET = r"""
import json, sys, time
import sunfish
import sunfish_ui.uci
from sunfish_ui.uci import from_fen
sunfish_ui.uci.sunfish = sunfish  # run() sets this module global before from_fen is used
fens, movetime = json.loads(sys.argv[1]), float(sys.argv[2])
nodes = 0; spent = 0.0
for fen in fens:
    f = fen.split()
    pos = from_fen(f[0], f[1], f[2], f[3], "0", "1")
    s = sunfish.Searcher()
    t0 = time.perf_counter()
    for depth, gamma, score, move in s.search([pos]):
        if time.perf_counter() - t0 > movetime:
            break
    spent += time.perf_counter() - t0
    nodes += s.nodes
print(json.dumps({"nodes": nodes, "time": spent}))
"""


def fens() -> list[str]:
    out = []
    for line in EPD.read_text().splitlines():
        if line.strip():
            out.append(" ".join(line.split()[:4]) + " 0 1")
    return out


def enoch_nps(
    positions: list[str], movetime: float, depth: int | None = None
) -> tuple[int, float, float]:
    """Total nodes, wall-clock seconds and CPU seconds of this process (less sensitive to
    other jobs on the machine than the wall clock, though not immune)."""
    sys.path.insert(0, os.environ.get("ENOCH_SRC", str(ROOT / "src")))
    from enoch.engine.search import Limits, Searcher
    from enoch.rules import Position

    nodes = 0
    spent = 0.0
    cpu = 0.0
    for fen in positions:
        searcher = Searcher(64)
        t0 = time.perf_counter()
        c0 = time.process_time()
        limits = Limits(depth=depth) if depth else Limits(movetime=movetime)
        r = searcher.think(Position.from_fen(fen), limits, overhead=0.0)
        spent += time.perf_counter() - t0
        cpu += time.process_time() - c0
        nodes += r.nodes
    return nodes, spent, cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--movetime", type=float, default=1.0)
    ap.add_argument("--depth", type=int, help="search each position to this depth instead")
    ap.add_argument("--sunfish-python", help="python of a venv with `pip install sunfish`")
    args = ap.parse_args()
    positions = fens()
    n, t, cpu = enoch_nps(positions, args.movetime, args.depth)
    what = f"depth {args.depth}" if args.depth else f"{args.movetime} s each"
    print(
        f"enoch   : {n:>9} nodes in {t:6.2f} s = {n / t:8.0f} nps "
        f"({len(positions)} positions, {what}); CPU {cpu:.2f} s = {n / cpu:.0f} nodes/CPU-s"
    )
    if args.sunfish_python and not args.depth:
        out = subprocess.run(
            [args.sunfish_python, "-c", SUNFISH_SNIPPET, json.dumps(positions), str(args.movetime)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        r = json.loads(out)
        sn, st = r["nodes"], r["time"]
        print(f"sunfish : {sn:>9} nodes in {st:6.2f} s = {sn / st:8.0f} nps")
        print(f"ratio enoch/sunfish: {(n / t) / (sn / st):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
