"""Instructions per search, load-independent: run under valgrind to compare engine versions.

Usage::

    PYTHONPATH=SRC valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        /path/to/python3.11 bench/callgrind_engine.py 5     # the search
    PYTHONPATH=SRC valgrind ... bench/callgrind_engine.py 1  # start-up, imports: subtract

Searches the first 6 Bratko-Kopec positions to the given depth, each with a fresh 16 MiB
searcher, and prints the node count (the same for two versions that search the same tree).
Valgrind's "Collected" line is the instruction count; the depth-1 run measures what is not the
search. Use the real interpreter binary (not a pyenv shim script) so that valgrind follows it.
"""

from __future__ import annotations

import sys
from pathlib import Path

from enoch.engine.search import Limits, Searcher
from enoch.rules import Position

EPD = Path(__file__).resolve().parent.parent / "tests" / "data" / "tactics" / "bratko_kopec24.epd"


def main() -> int:
    depth = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    lines = [line for line in EPD.read_text().splitlines() if line.strip()][:6]
    nodes = 0
    for line in lines:
        pos = Position.from_fen(" ".join(line.split()[:4]) + " 0 1")
        nodes += Searcher(16).think(pos, Limits(depth=depth), overhead=0.0).nodes
    print("nodes", nodes)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
