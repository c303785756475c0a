"""Time ``enoch microchess explain`` per position over the recorded case file.

Run by hand (not by pytest)::

    python bench/bench_microchess.py [--repeat N] [--profile]

Each position is explained ``--repeat`` times (default 5) and its best time kept, so that a
stray pause of the machine does not count; the median and the worst of those per-position
times are printed. The target is a median under 20 ms. ``--profile`` adds a cProfile of the
slowest position.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import statistics
import sys
import time
from pathlib import Path

from enoch.microchess.explain import explain_fen, render_text, to_json

CASES = Path(__file__).resolve().parent.parent / "tests" / "data" / "microchess" / "cases.jsonl"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per position (best kept)")
    parser.add_argument("--profile", action="store_true", help="cProfile the slowest position")
    args = parser.parse_args()
    fens = [json.loads(line)["fen"] for line in CASES.read_text().splitlines() if line.strip()]
    times: list[tuple[float, str]] = []
    for fen in fens:
        best = float("inf")
        for _ in range(args.repeat):
            start = time.perf_counter()
            ex = explain_fen(fen)
            to_json(ex)
            render_text(ex)
            best = min(best, time.perf_counter() - start)
        times.append((best, fen))
    ms = sorted(t * 1000 for t, _ in times)
    worst_t, worst_fen = max(times)
    print(f"positions: {len(ms)}  (best of {args.repeat} runs each)")
    print(f"median: {statistics.median(ms):.2f} ms   mean: {statistics.fmean(ms):.2f} ms")
    print(f"p90: {ms[int(len(ms) * 0.9)]:.2f} ms   worst: {worst_t * 1000:.2f} ms  ({worst_fen})")
    print(f"total: {sum(ms):.0f} ms   target: median < 20 ms")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(explain_fen, worst_fen)
        pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
