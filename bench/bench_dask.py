"""The arena's backends and its SPRT models, measured.

In one run:

- ``throughput``: random-agent chess games per second on ``local`` with 2 worker processes and
  on ``dask`` with a 2-worker ``LocalCluster`` (127.0.0.1), the same games (seeded), both
  warmed first (the worker processes started and enoch imported: a match pays that once; the
  cluster's start-up is printed apart);
- ``overhead``: what the dask backend adds to a game: units of two 2-ply games (next to no
  game at all) submitted one at a time, their round trip against the same unit played here,
  in ms per game (submission, pickling, the scheduler, the attempt count, the result back);
- ``sprt``: pentanomial against trinomial SPRT on the same simulated games: the average number
  of games to a decision and how often each accepts H1. Each pair plays a start whose bias for
  white is drawn from a normal law (``--bias`` Elo), the true difference is ``--elo``, results
  follow the BayesElo draw model (``--drawelo``); the trinomial sees the games one by one, the
  pentanomial the same games as pairs.

    python bench/bench_dask.py [--games 200] [--units 40] [--runs 200] [--elo 5]

The machine's cores may be shared: the figures are for comparing backends and models in one
run, not absolute.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time

from enoch.arena.backends import DaskBackend, Inline, LocalProcesses
from enoch.arena.match import UnitJob, match_schedule, play_unit, run_match
from enoch.arena.referee import GameConfig
from enoch.arena.stats import PairScore, Score, Sprt
from enoch.game.registry import find_game

AGENTS = ("builtin:random?seed=1", "builtin:random?seed=2")


def throughput(games: int, dask: DaskBackend, rounds: int = 2) -> dict[str, float]:
    """Best games/s of ``rounds`` alternated runs per backend (the cores may be shared: the
    alternation keeps one backend from having all the quiet moments)."""
    local = LocalProcesses(2)
    backends = {"local, 2 processes": local, "dask, 2 workers": dask}
    out = dict.fromkeys(backends, 0.0)
    try:
        for backend in backends.values():
            run_match(*AGENTS, games=8, backend=backend)  # warm: workers up, enoch imported
        for _ in range(rounds):
            for label, backend in backends.items():
                t0 = time.perf_counter()
                outcome = run_match(*AGENTS, games=games, backend=backend)
                dt = time.perf_counter() - t0
                assert len(outcome.games) == games
                out[label] = max(out[label], games / dt)
    finally:
        local.close()
    return out


def overhead(units: int, dask: DaskBackend) -> tuple[float, float]:
    """(ms per game here, ms per game on dask) for units of two 2-ply games, one at a time."""
    import enoch

    rules = find_game("chess")
    setup = rules.setup({}, max_plies=2)
    schedule = match_schedule(2, rules.starts(setup))

    def job(k: int) -> UnitJob:
        return UnitJob(
            agents=AGENTS,
            names=AGENTS,
            games=tuple(schedule),
            variant="chess",
            setup=setup,
            config=GameConfig(),
            logs=False,
            game_timeout=None,
            version=enoch.__version__,
            run=f"bench-{k}",
        )

    times: dict[str, list[float]] = {"here": [], "dask": []}
    for k in range(units):
        for label, backend in (("here", Inline()), ("dask", dask)):
            t0 = time.perf_counter()
            played = backend.submit(play_unit, f"bench-{k}", 1, job(k)).result()
            times[label].append(time.perf_counter() - t0)
            assert len(played) == 2
    return (
        1000 * statistics.median(times["here"]) / 2,
        1000 * statistics.median(times["dask"]) / 2,
    )


def _probs(elo: float, drawelo: float) -> tuple[float, float]:
    win = 1 / (1 + 10 ** ((-elo + drawelo) / 400))
    loss = 1 / (1 + 10 ** ((elo + drawelo) / 400))
    return win, loss


def _game(rng: random.Random, elo: float, drawelo: float) -> float:
    win, loss = _probs(elo, drawelo)
    u = rng.random()
    return 1.0 if u < win else 0.0 if u < win + loss else 0.5


def sprt_race(
    runs: int, elo: float, bias: float, drawelo: float, sprt: Sprt, cap: int, seed: int = 1
) -> dict[str, tuple[float, float]]:
    """Average games to a decision and the share of H1, per model, over ``runs`` runs."""
    rng = random.Random(seed)
    lengths: dict[str, list[int]] = {"trinomial": [], "pentanomial": []}
    h1: dict[str, int] = {"trinomial": 0, "pentanomial": 0}
    lower, upper = sprt.bounds()
    for _ in range(runs):
        games, pairs = Score(), PairScore()
        decided: dict[str, str] = {}
        while len(decided) < 2 and games.games < cap:
            b = rng.gauss(0.0, bias)
            first = _game(rng, elo + b, drawelo)  # our agent has white
            second = _game(rng, elo - b, drawelo)  # then black, same start
            for points in (first, second):
                games.add(points)
                if "trinomial" not in decided:
                    llr = sprt.llr(games)
                    if llr >= upper or llr <= lower:
                        decided["trinomial"] = "H1" if llr >= upper else "H0"
                        lengths["trinomial"].append(games.games)
            pairs.add(first + second)
            if "pentanomial" not in decided:
                llr = sprt.llr(pairs)
                if llr >= upper or llr <= lower:
                    decided["pentanomial"] = "H1" if llr >= upper else "H0"
                    lengths["pentanomial"].append(pairs.games)
        for model in lengths:
            if model not in decided:
                lengths[model].append(cap)
            h1[model] += decided.get(model) == "H1"
    return {m: (statistics.fmean(v), h1[m] / runs) for m, v in lengths.items()}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200, help="games per backend (throughput)")
    ap.add_argument("--units", type=int, default=40, help="units timed one by one (overhead)")
    ap.add_argument("--runs", type=int, default=200, help="simulated SPRT runs per model")
    ap.add_argument("--elo", type=float, default=5.0, help="true Elo difference (simulated)")
    ap.add_argument("--bias", type=float, default=60.0, help="sd of a start's bias, Elo")
    ap.add_argument("--drawelo", type=float, default=150.0, help="BayesElo draw parameter")
    ap.add_argument("--sprt", default="elo0=0,elo1=10,alpha=0.05,beta=0.05")
    ap.add_argument("--skip-backends", action="store_true", help="only the SPRT simulation")
    args = ap.parse_args(argv)

    if not args.skip_backends:
        t0 = time.perf_counter()
        dask = DaskBackend(2)
        start = time.perf_counter() - t0
        try:
            rates = throughput(args.games, dask)
            here, remote = overhead(args.units, dask)
        finally:
            dask.close()
        print(f"throughput ({args.games} random-agent chess games, best of 2 alternated runs):")
        for label, rate in rates.items():
            print(f"  {label:20s} {rate:7.1f} games/s")
        print(f"  (LocalCluster start-up: {start:.1f} s, once per match)")
        print(f"overhead (units of two 2-ply games, one at a time, median of {args.units}):")
        print(f"  here {here:.2f} ms/game, dask {remote:.2f} ms/game: +{remote - here:.2f} ms")

    sprt = Sprt.parse(args.sprt)
    t0 = time.perf_counter()
    race = sprt_race(args.runs, args.elo, args.bias, args.drawelo, sprt, cap=400_000)
    print(
        f"SPRT {args.sprt}, true Elo {args.elo:+g}, start bias sd {args.bias:g}, "
        f"drawelo {args.drawelo:g}, {args.runs} runs ({time.perf_counter() - t0:.0f} s):"
    )
    for model, (mean, share) in race.items():
        print(f"  {model:12s} {mean:9.0f} games to a decision on average, H1 {100 * share:.0f}%")
    tri, pen = race["trinomial"][0], race["pentanomial"][0]
    if math.isfinite(tri) and pen:
        print(f"  the pentanomial needs {100 * (1 - pen / tri):.0f}% fewer games")


if __name__ == "__main__":
    main()
