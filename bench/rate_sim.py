"""How many games ``enoch rate`` needs for a 95% interval of +-100: a simulation with the maths.

Usage::

    python bench/rate_sim.py [--trials 200] [--true 1000] [--seed 1]

An agent of known rating (``--true``, default: the middle of the shipped chess ladder) plays
the ladder's rungs, its games drawn from the logistic Elo model (expected score ``E`` against
each rung; draws with probability ``DRAW * 4 E (1 - E)``, the rest split so that the expected
score stays ``E``). After each pair of games it is fitted exactly as ``enoch rate`` does
(:func:`enoch.ratings.maths.fit`, the ladder held fixed). Two schedules:

- ``round-robin``: pairs against every rung in turn, the fixed schedule;
- ``adaptive``: ``enoch rate``'s rule (:func:`enoch.ratings.rate.next_opponent`).

For each game count it prints the median half-width of the 95% interval over ``--trials``
runs, how often the interval held the true rating (coverage), and the first game count where
the median half-width is at most 100. It also prints the games a single rung needs for +-75
against one anchor (the ladder's target) from the curvature of the likelihood per game,
``K^2 E (1 - E)`` (draws counted as halves do not change it).
No game is played: the figures hold for the model, and real agents (draw rates, non-logistic
gaps such as Stockfish's levels) differ somewhat.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys

from enoch.ratings.ladder import ladder_ratings, load_ladder
from enoch.ratings.maths import Z95, K, expected, fit
from enoch.ratings.rate import next_opponent

DRAW = 0.2  # draw share of an even game (engine games at fast controls: about that)
COUNTS = (10, 20, 30, 40, 60, 80, 100, 120, 150, 200, 250, 300)


def play(rng: random.Random, r: float, opp: float) -> float:
    e = expected(r, opp)
    d = DRAW * 4 * e * (1 - e)
    x = rng.random()
    if x < e - d / 2:
        return 1.0
    if x < e + d / 2:
        return 0.5
    return 0.0


def run(
    rng: random.Random, true: float, rungs: dict[str, float], games: int, adaptive: bool
) -> tuple[float, float, float]:
    names = sorted(rungs, key=rungs.__getitem__)
    ordered = sorted(rungs.values())
    estimate = (ordered[(len(ordered) - 1) // 2] + ordered[len(ordered) // 2]) / 2
    played: dict[str, int] = {}
    record: list[tuple[str, str, float]] = []
    result = (estimate, -math.inf, math.inf)
    pair = 0
    while len(record) < games:
        opp = next_opponent(estimate, rungs, played) if adaptive else names[pair % len(names)]
        pair += 1
        for _ in range(min(2, games - len(record))):
            record.append(("X", opp, play(rng, true, rungs[opp])))
            played[opp] = played.get(opp, 0) + 1
        result = fit(record, rungs)["X"]
        estimate = result[0]
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trials", type=int, default=200)
    ap.add_argument("--true", type=float, help="the agent's rating (default: ladder middle)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rungs = ladder_ratings(load_ladder("chess"))
    ordered = sorted(rungs.values())
    true = args.true if args.true is not None else (ordered[0] + ordered[-1]) / 2
    print(f"ladder: {', '.join(f'{n} {r:.0f}' for n, r in rungs.items())}")
    print(f"agent's true rating {true:.0f}; draw share of an even game {DRAW}")
    print(f"{'games':>6} {'schedule':>12} {'median +-':>10} {'coverage':>9}")
    first: dict[str, int | None] = {"round-robin": None, "adaptive": None}
    for n in COUNTS:
        for label, adaptive in (("round-robin", False), ("adaptive", True)):
            rng = random.Random(args.seed * 1000 + n)
            halves, hits = [], 0
            for _ in range(args.trials):
                _, lo, hi = run(rng, true, rungs, n, adaptive)
                halves.append((hi - lo) / 2)
                hits += lo <= true <= hi
            med = statistics.median(halves)
            if med <= 100 and first[label] is None:
                first[label] = n
            print(f"{n:>6} {label:>12} {med:>10.0f} {hits / args.trials:>9.2f}")
    for label, n in first.items():
        print(f"{label}: median +-100 first reached at {n} games")
    # one rung against one anchor, for the ladder's +-75 target
    for gap in (0, 100, 200, 300):
        e = expected(gap, 0)
        # the curvature of the likelihood (draws as halves) per game: K^2 E (1 - E)
        need = math.ceil((Z95 / 75) ** 2 / (K * K * e * (1 - e)))
        print(f"a rung {gap} points from its anchor needs {need} games for +-75")
    return 0


if __name__ == "__main__":
    sys.exit(main())
