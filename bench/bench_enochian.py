"""Enochian benchmarks, run by hand: ``PYTHONPATH=src python bench/bench_enochian.py``.

Prints, for each of the 16 arrays: perft positions/second (depth 4 from the start), random
games/second through the referee (two players, 200-ply limit), and the search depth the
search agent completes in 1 s from the start. ``--quick`` runs three arrays only.

``--search-only`` prints only the search columns (depth completed in ``--movetime`` seconds,
nodes/s, and the time the search really took, which must not pass the budget).
``--search-module FILE`` loads the ``Searcher`` from another copy of ``search.py`` (e.g. an
older one, ``git show REV:src/enoch/enochian/search.py > /tmp/old_search.py``) to compare.
"""

from __future__ import annotations

import argparse
import time

from enoch.enochian.agents import RandomAgent
from enoch.enochian.referee import play_game
from enoch.enochian.search import Searcher
from enoch.enochian.spec import available_arrays
from enoch.enochian.state import new_game


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--depth", type=int, default=4)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--movetime", type=float, default=1.0)
    ap.add_argument("--search-only", action="store_true")
    ap.add_argument("--search-module", help="a search.py to take Searcher from")
    args = ap.parse_args()
    arrays = available_arrays()[:3] if args.quick else available_arrays()
    searcher = Searcher
    if args.search_module:
        import importlib.util

        spec_ = importlib.util.spec_from_file_location("other_search", args.search_module)
        assert spec_ is not None and spec_.loader is not None
        mod = importlib.util.module_from_spec(spec_)
        spec_.loader.exec_module(mod)
        searcher = mod.Searcher
    if args.search_only:
        depths = []
        print(f"{'array':<16} {'depth':>6} {'nodes/s':>8} {'seconds':>8}")
        for spec in arrays:
            s = searcher(movetime=args.movetime)
            st = new_game(spec.id)
            t = time.perf_counter()
            s.best_move(st)
            dt = time.perf_counter() - t
            depths.append(s.depth_reached)
            print(f"{spec.id:<16} {s.depth_reached:>6} {s.nodes / dt:>8.0f} {dt:>8.3f}", flush=True)
        print(f"mean depth {sum(depths) / len(depths):.2f}, min {min(depths)}, max {max(depths)}")
        return
    print(
        f"{'array':<16} {'perft':>8} {'pos/s':>8} {'games/s':>8} {'plies/s':>8} "
        f"{'depth@1s':>8} {'nodes/s':>8}"
    )
    tot_pos = tot_t = 0.0
    for spec in arrays:
        st = new_game(spec.id)
        t = time.perf_counter()
        n = st.perft(args.depth)
        dt = time.perf_counter() - t
        tot_pos += n
        tot_t += dt
        t = time.perf_counter()
        plies = 0
        for g in range(args.games):
            res = play_game(
                [RandomAgent(seed=str(g)), RandomAgent(seed=str(g + 99))], spec.id, max_plies=200
            )
            plies += res.plies
        gt = time.perf_counter() - t
        s = Searcher(movetime=args.movetime)
        t = time.perf_counter()
        s.best_move(new_game(spec.id))
        st_t = time.perf_counter() - t
        print(
            f"{spec.id:<16} {n:>8} {n / dt:>8.0f} {args.games / gt:>8.2f} {plies / gt:>8.0f} "
            f"{s.depth_reached:>8} {s.nodes / st_t:>8.0f}"
        )
    print(f"perft overall: {tot_pos / tot_t:.0f} positions/s")


if __name__ == "__main__":
    main()
