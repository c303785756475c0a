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

from bench_engine import fens  # the Bratko-Kopec FENs (run as a script: bench/ is on the path)
from enoch.engine.search import Limits, Searcher
from enoch.rules import Position


def main() -> int:
    depth = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    nodes = 0
    for fen in fens()[:6]:
        pos = Position.from_fen(fen)
        nodes += Searcher(16).think(pos, Limits(depth=depth), overhead=0.0).nodes
    print("nodes", nodes)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
