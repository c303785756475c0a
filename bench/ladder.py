"""Measure the rating ladder: play its pairings, fit the ratings, write ``ladder.json``.

Usage::

    python bench/ladder.py --minutes 70 --results bench/results/ladder.jsonl
    python bench/ladder.py --fit-only --markdown --write --results bench/results/ladder.jsonl
    python bench/ladder.py --variant enochian --workers 1 --minutes 25 \\
        --results bench/results/ladder-enochian.jsonl

Chess: each rung (random, greedy, MicroChess, the engine's levels) is rated by games against
Debian Stockfish 15.1's ``UCI_LimitStrength``/``UCI_Elo`` levels, held fixed at their labels,
and against each other: rungs too weak to score against Stockfish's lowest level (1350) are
chained through the rungs above them. One maximum-likelihood fit over every game
(``enoch.ratings.maths.fit``) gives each rung its rating and 95% interval, the chain's
uncertainty included. Enochian has no outside anchor: ``builtin:random`` is held at 0.

``--workers`` processes play at once. Before each two games (one opening, both colours) a
worker refits everything so far and takes the pairing whose games narrow the widest intervals
most per second (see *Choosing the next pairing* below). Every game is appended to
``--results`` as it ends, and a new run with the same file goes on from there, so the budget
can be spent in several runs. ``--write`` writes the fit into ``src/enoch/ratings/`` with the
date, the commit and this command; ``--markdown`` prints the tables of ``bench/ladder.md``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import fcntl
import itertools
import json
import math
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from enoch.arena.clock import TimeControl
from enoch.arena.match import run_match
from enoch.arena.referee import GameConfig
from enoch.game.registry import find_game
from enoch.ratings.maths import Z95, K, expected, fit, inverse

ROOT = Path(__file__).resolve().parent.parent
SF = "uci:/usr/games/stockfish?UCI_LimitStrength=true&UCI_Elo="


# Stockfish is played with two options its name in the ladder and the fit leaves out, because
# neither changes a move at limited strength (Stockfish 15.1 picks its move when its iterative
# deepening reaches depth 1 + skill level, at most 5 plies for these levels, and only spends
# the rest of its time): a Move Overhead of 200 ms (at its default 10 ms a loaded machine made
# it lose games on time by a few milliseconds, which measures the machine, not the level) and
# Slow Mover 10, which makes it spend a tenth of its usual share of the clock (126 ms instead of
# 1.05 s for its first move at 10+0.1, both far past the depth that picks the move), so that
# its games take a fraction of the time.
SF_PLAYED = "&Move+Overhead=200&Slow+Mover=10"
SF_PLAYED_BEFORE = ("&Move+Overhead=200",)  # what earlier runs added, stripped as well


def sf(elo: int) -> str:
    return f"{SF}{elo}"


def played_as(name: str) -> str:
    return name + SF_PLAYED if name.startswith(SF) else name


# The engine's levels were played under labels that were then moved to the measured ratings
# (rounded to 50, the parameters kept: engine/levels.py); each results line carries the
# ``labels`` version it was played under (none: the first run of 2026-11-27, 10:48-11:58 UTC,
# at fe4926d; 2: the second, 12:12-12:33, at f36de73), and RENAMED maps its names to today's.
# Depth 2 at temperature 100 measured as strong as depth 1 at 60 and is not a level: it stays
# in the fit under its parameters, for the games that link it to the rungs.
LABELS = 3
RENAMED: dict[int | None, dict[str, str]] = {
    None: {
        "builtin:engine?elo=150": "builtin:engine?elo=250",
        "builtin:engine?elo=600": "builtin:engine?elo=650",
        "builtin:engine?elo=800": "builtin:engine?elo=1050",
        "builtin:engine?elo=900": "engine at depth 2, temperature 100",
        "builtin:engine?elo=1050": "builtin:engine?elo=1100",
        "builtin:engine?elo=1400": "builtin:engine?elo=1350",
        "builtin:engine?elo=1650": "builtin:engine?elo=1700",
    },
    2: {"builtin:engine?elo=200": "builtin:engine?elo=250"},
}


def canonical(name: str, line: dict[str, Any]) -> str:
    """The ladder's name of an agent of a results line: Stockfish without the options that
    change no move, the engine's levels under their present labels."""
    for extra in (SF_PLAYED, *SF_PLAYED_BEFORE):
        name = name.replace(extra, "")
    return RENAMED.get(line.get("labels"), {}).get(name, name)


# Rungs and anchors, and the pairings that connect them (each a chain link or a measurement).
LADDERS: dict[str, dict[str, Any]] = {
    "chess": {
        "file": "ladder.json",
        "tc": "10+0.1",
        "anchor": "Stockfish 15.1 (Debian) UCI_LimitStrength/UCI_Elo levels, held at their labels",
        # Rungs about 200 points apart, so that every link of the chain is near an even score
        # (a link scoring 0.03 carries an eighth of an even game's information); the first
        # ladder (1,349 games) had gaps of 450 to 650 points and its chained rungs reached
        # only +-170 to +-210.
        "rungs": [
            "builtin:random",
            "builtin:greedy",
            "builtin:engine?elo=250",
            "builtin:microchess",
            "builtin:engine?elo=650",
            "builtin:engine?elo=1050",
            "builtin:engine?elo=1100",
            "builtin:engine?elo=1250",
            "builtin:engine?elo=1350",
            "builtin:engine?elo=1500",
            "builtin:engine?elo=1700",
        ],
        "fixed": {sf(1350): 1350.0, sf(1600): 1600.0, sf(2000): 2000.0},
    },
    "enochian": {
        "file": "ladder-enochian.json",
        "tc": "60+0.5",
        "anchor": "enoch's Enochian agents, builtin:random held at 0 (no outside anchor)",
        # Count-bound rungs only (a move time would make a rung's strength the machine's):
        # greedy with a share of random moves between random and greedy, whose own pairing is
        # too one-sided to measure anything (62-0 in the first ladder), and the search agent
        # at fixed depths above it, with a 5% share of random moves: an Enochian game has one
        # start, so two deterministic searchers would replay one game.
        "rungs": [
            "builtin:random",
            "builtin:greedy?noise=0.75",
            "builtin:greedy?noise=0.5",
            "builtin:greedy?noise=0.25",
            "builtin:greedy?noise=0.1",
            "builtin:greedy",
            "builtin:search?depth=1&noise=0.05",
            "builtin:search?depth=2&noise=0.05",
            "builtin:search?depth=3&noise=0.05",
        ],
        "fixed": {"builtin:random": 0.0},
    },
}


# ---------------------------------------------------------------------------------------------
# Choosing the next pairing: where a game's time narrows the widest intervals most.
#
# The fit's covariance C (the inverse of the information matrix over the free rungs) says how
# sure each rung is. Two more games of a pairing (a, b) at expected score E add information
# w = 2 K^2 E (1 - E) along u = e_a - e_b, and by the Sherman-Morrison formula lower rung i's
# variance by w (C u)_i^2 / (1 + w u'Cu): a link helps every rung whose rating is measured
# through it, most where it is the weakest link of the chain. Each candidate pairing is scored
# by that reduction (summed over the rungs still wider than the target, each counted only down
# to the target) per second of its games (the mean of its games so far), and the best is
# played. Pairings surely more than MAX_GAP points apart (by more than the 95% interval of
# their difference) are not candidates: their results say little, and what they say leans
# most on the logistic model's tails.
MAX_GAP = 450.0
TARGET_HALF_WIDTH = 75.0  # the 95% half-width the issue asks for
SECONDS_GUESS = {"sf": 6.0, "other": 2.0}  # a pairing's cost before its first games


def covariance(
    games: list[tuple[str, str, float]], ratings: dict[str, float], free: list[str]
) -> list[list[float]]:
    """The inverse of the information matrix of the free ratings at ``ratings`` (plus a
    ten-thousandth of a game on the diagonal, so that rungs not yet connected to an anchor have
    a finite variance, huge, which makes the first games against an anchor the most useful)."""
    index = {n: i for i, n in enumerate(free)}
    n = len(free)
    info = [[(K * K * 1e-4) if i == j else 0.0 for j in range(n)] for i in range(n)]
    pairs: dict[tuple[str, str], int] = {}
    for a, b, _ in games:
        pairs[(a, b)] = pairs.get((a, b), 0) + 1
    for (a, b), count in pairs.items():
        p = expected(ratings[a], ratings[b])
        h = count * K * K * p * (1.0 - p)
        ia, ib = index.get(a), index.get(b)
        if ia is not None:
            info[ia][ia] += h
        if ib is not None:
            info[ib][ib] += h
        if ia is not None and ib is not None:
            info[ia][ib] -= h
            info[ib][ia] -= h
    return inverse(info)


def read_results(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            out.append(json.loads(line))
    return out


def games_of(lines: list[dict[str, Any]]) -> list[tuple[str, str, float]]:
    """``(seat 0's agent, seat 1's agent, seat 0's points)`` of every counted game (see
    :func:`_counted`)."""
    return [
        (
            canonical(line["seats"][0], line),
            canonical(line["seats"][1], line),
            float(line["points"][0]),
        )
        for line in _counted(lines)
    ]


def sf_flagged(line: dict[str, Any]) -> bool:
    """Stockfish lost on time: the machine's load (other jobs starve it for a few
    milliseconds at 10+0.1), not its level; such games are left out of the fit and counted."""
    if line.get("termination") != "timeout" or line.get("winner") is None:
        return False
    loser = line["seats"][1 - int(line["winner"])]
    return bool(canonical(loser, line).startswith(SF))


def pair_key(line: dict[str, Any]) -> tuple[str, str]:
    return canonical(line["pair_a"], line), canonical(line["pair_b"], line)


def fit_ladder(spec: dict[str, Any], lines: list[dict[str, Any]]) -> dict[str, Any]:
    games = games_of(lines)
    fixed = dict(spec["fixed"])
    ratings = fit(games, fixed)
    count: dict[str, int] = {}
    for a, b, _ in games:
        count[a] = count.get(a, 0) + 1
        count[b] = count.get(b, 0) + 1
    agents = {}
    for rung in spec["rungs"]:
        if rung not in ratings:
            continue
        r, lo, hi = ratings[rung]
        agents[rung] = {
            "rating": round(r, 1),
            "low": round(lo, 1),
            "high": round(hi, 1),
            "games": count.get(rung, 0),
        }
    return agents


def markdown(spec: dict[str, Any], lines: list[dict[str, Any]], agents: dict[str, Any]) -> str:
    """The rung table and the pairings' results (from the first agent's side), each with the
    score the fitted ratings expect and how far off it is (``z``: the difference in standard
    errors of a game without draws, so a conservative measure of misfit)."""
    fixed = dict(spec["fixed"])
    games = games_of(lines)
    out = [
        "| rung | rating | 95% interval | games | against Stockfish alone |",
        "| --- | ---: | --- | ---: | --- |",
    ]
    for name, rung in agents.items():
        direct = [g for g in games if name in g[:2] and (g[0] in fixed or g[1] in fixed)]
        alone = ""
        if direct:
            r, lo, hi = fit(direct, fixed)[name]
            alone = f"{r:.0f} ({lo:.0f} .. {hi:.0f}), {len(direct)} games"
        out.append(
            f"| `{name}` | {rung['rating']:.0f} | {rung['low']:.0f} .. {rung['high']:.0f} "
            f"| {rung['games']} | {alone} |"
        )
    for name, rating in spec["fixed"].items():
        out.append(f"| `{name}` (anchor) | {rating:.0f} | held | | |")
    out += [
        "",
        "| pairing | games | W-D-L (first's side) | score | expected | z |",
        "| --- | ---: | --- | ---: | ---: | ---: |",
    ]
    fitted = fit(games, fixed)
    rating = {n: r for n, (r, _, _) in fitted.items()}
    for name, (r, lo, hi) in fitted.items():
        if name not in agents and name not in fixed:
            row = f"| {name} (not a rung) | {r:.0f} | {lo:.0f} .. {hi:.0f} | | |"
            out.insert(2 + len(agents), row)
    table: dict[tuple[str, str], list[int]] = {}
    for line in _counted(lines):
        a, b = pair_key(line)
        first = canonical(line["seats"][0], line) == a
        p = float(line["points"][0 if first else 1])
        cell = table.setdefault((a, b), [0, 0, 0])
        cell[0 if p == 1 else 1 if p == 0.5 else 2] += 1

    def place(pair: tuple[str, str]) -> list[float]:
        return [rating.get(n, 0.0) for n in pair]

    for (a, b), (w, d, lo) in sorted(table.items(), key=lambda x: place(x[0])):
        n = w + d + lo
        score = (w + d / 2) / n
        e = expected(rating[a], rating[b]) if a in rating and b in rating else math.nan
        z = (score - e) * math.sqrt(n / (e * (1 - e))) if 0 < e < 1 else math.nan
        out.append(f"| `{a}` - `{b}` | {n} | {w}-{d}-{lo} | {score:.3f} | {e:.3f} | {z:+.1f} |")
    return "\n".join(out)


def _counted(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The games the fit counts: not ``abandoned``, not a ``crash``, not lost on time by
    Stockfish, and not a replay: a game whose agents, seats and moves are those of an earlier
    game of the results says nothing new (the first run's levels had a fixed default seed, so
    two deterministic agents replayed one game per opening; of its 9,356 games 3,331 were
    replays). Lines without their moves (as the workers keep them) are all counted."""
    seen: set[tuple[Any, ...]] = set()
    out = []
    for x in lines:
        if x.get("termination") in ("abandoned", "crash") or sf_flagged(x):
            continue
        if "moves" in x:
            key = (pair_key(x), tuple(x["seats"]), tuple(x["moves"]))
            if key in seen:
                continue
            seen.add(key)
        out.append(x)
    return out


def seeds(spec: dict[str, Any], variant: str) -> dict[str, float]:
    """Starting guesses of the rungs' ratings for choosing pairings before they have games:
    the shipped ladder's rating where it has the rung, else the number in an ``elo=`` label,
    else 0."""
    shipped = json.loads((ROOT / "src" / "enoch" / "ratings" / spec["file"]).read_text())
    out = dict(spec["fixed"])
    for rung in spec["rungs"]:
        if rung in out:
            continue
        if rung in shipped["agents"]:
            out[rung] = float(shipped["agents"][rung]["rating"])
        elif "elo=" in rung:
            out[rung] = float(rung.split("elo=")[1].split("&")[0])
        else:
            out[rung] = 0.0
    return out


def order(spec: dict[str, Any]) -> list[str]:
    return [*spec["rungs"], *(n for n in spec["fixed"] if n not in spec["rungs"])]


def choose(
    spec: dict[str, Any], lines: list[dict[str, Any]], guess: dict[str, float]
) -> tuple[tuple[str, str], float, str]:
    """The pairing to play next, with the widest half-width now and its rung."""
    games = games_of(lines)
    fixed = dict(spec["fixed"])
    names = order(spec)
    # agents of earlier runs that are not rungs stay in the fit (their games link the rungs)
    extra = sorted({n for g in games for n in g[:2]} - set(names))
    ratings = placed(games, fixed, guess, [*names, *extra])
    free = [n for n in [*names, *extra] if n not in fixed]
    cov = covariance(games, ratings, free)
    # only the rungs' intervals count (an earlier run's agent that is not a rung stays in the
    # fit, but no game is chosen for its sake)
    var = [cov[i][i] if n in names else 0.0 for i, n in enumerate(free)]
    target = (TARGET_HALF_WIDTH / Z95) ** 2
    widest = max(range(len(free)), key=lambda i: var[i])
    seconds: dict[tuple[str, str], list[float]] = {}
    for line in lines:
        # the wall time of a game with its agents' start (what choosing it costs)
        seconds.setdefault(pair_key(line), []).append(float(line.get("wall", line["seconds"])))
    index = {n: i for i, n in enumerate(free)}
    best: tuple[float, tuple[str, str]] | None = None
    for a, b in itertools.combinations(names, 2):
        if a in fixed and b in fixed:
            continue
        u = [0.0] * len(free)
        if a in index:
            u[index[a]] += 1.0
        if b in index:
            u[index[b]] -= 1.0
        cu = [sum(row[j] * u[j] for j in range(len(u))) for row in cov]
        ucu = sum(x * y for x, y in zip(u, cu, strict=True))
        if abs(ratings[a] - ratings[b]) - Z95 * math.sqrt(ucu) > MAX_GAP:
            continue  # surely far apart (not merely far apart by an unsure fit)
        e = expected(ratings[a], ratings[b])
        w = 2 * K * K * e * (1 - e)
        drop = [w * x * x / (1 + w * ucu) for x in cu]
        if any(v > target for v in var):
            gain = sum(min(d, v - target) for d, v in zip(drop, var, strict=True) if v > target)
        else:
            gain = sum(drop)
        past = seconds.get((a, b))
        cost = sum(past) / len(past) if past else SECONDS_GUESS["sf" if SF in a + b else "other"]
        score = gain / max(cost, 0.05)
        if best is None or score > best[0]:
            best = (score, (a, b))
    assert best is not None, "no pairing within MAX_GAP"
    return best[1], Z95 * math.sqrt(var[widest]), free[widest]


def placed(
    games: list[tuple[str, str, float]],
    fixed: dict[str, float],
    guess: dict[str, float],
    names: list[str],
) -> dict[str, float]:
    """The ratings to choose by: the fit's, except that a group of rungs not yet connected
    by games to an anchor (whose fitted level is arbitrary) keeps its guesses' mean level."""
    fitted = {n: r for n, (r, _, _) in fit(games, fixed).items()}
    group = {n: n for n in names}

    def root(n: str) -> str:
        while group[n] != n:
            n = group[n]
        return n

    for a, b, _ in games:
        group[root(a)] = root(b)
    out = dict(guess)
    members: dict[str, list[str]] = {}
    for n in names:
        members.setdefault(root(n), []).append(n)
    for ms in members.values():
        played = [n for n in ms if n in fitted]
        if any(n in fixed for n in ms) or not played:
            out.update({n: fitted[n] for n in played})
            continue
        shift = sum(guess.get(n, fitted[n]) for n in played) / len(played)
        shift -= sum(fitted[n] for n in played) / len(played)
        out.update({n: fitted[n] + shift for n in played})
    return out


@contextmanager
def locked(path: Path) -> Iterator[None]:
    with open(str(path) + ".lock", "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def claim(path: Path, pair: tuple[str, str]) -> int:
    """The first opening for two more games of ``pair``: openings are claimed in a side file
    (under the lock) so that two workers never play the same opening of one pairing."""
    claims = Path(str(path) + ".claims")
    taken = sum(
        1
        for line in (claims.read_text().splitlines() if claims.exists() else [])
        if tuple(json.loads(line)) == pair
    )
    with claims.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(list(pair)) + "\n")
    return 2 * taken


def work(args: argparse.Namespace, spec: dict[str, Any], path: Path, worker: int) -> None:
    """One worker: choose a pairing, play one opening with both colours, append, repeat."""
    rules = find_game(args.variant)
    setup = rules.setup(max_plies=rules.default_max_plies)  # as the CLI: Enochian 400
    starts = rules.starts(setup)
    config = GameConfig(tc=TimeControl.parse(args.tc or spec["tc"]))
    guess = seeds(spec, args.variant)
    stop_at = time.monotonic() + 60 * args.minutes
    started = time.monotonic()
    lines: list[dict[str, Any]] = []
    offset = 0
    while time.monotonic() < stop_at:
        with locked(path):
            # only what was appended since the last look (whole lines: writes hold the lock),
            # without the moves, which choosing does not need
            if path.exists():
                with path.open("rb") as fh:
                    fh.seek(offset)
                    chunk = fh.read()
                offset += len(chunk)
                for text in chunk.decode("utf-8").splitlines():
                    if text.strip():
                        line = json.loads(text)
                        line.pop("moves", None)
                        lines.append(line)
            if len(lines) >= args.max_games:
                break
            (a, b), widest, rung = choose(spec, lines, guess)
            first = claim(path, (a, b))
        t0 = time.monotonic()
        outcome = run_match(
            played_as(a),
            played_as(b),
            variant=rules,
            setup=setup,
            games=2,
            first=first,
            starts=starts,
            config=config,
            concurrency=1,
        )
        wall = round((time.monotonic() - t0) / max(1, len(outcome.games)), 3)
        with locked(path), path.open("a", encoding="utf-8") as fh:
            for sched, result in outcome.games:
                line = {"game": sched.index, "pair_a": a, "pair_b": b, "wall": wall}
                line["labels"] = LABELS
                line.update(result.to_json())
                fh.write(json.dumps(line) + "\n")
        sc = [r.points[g.seats.index(0)] for g, r in outcome.games]
        print(
            f"[{(time.monotonic() - started) / 60:5.1f} min] w{worker} {a} vs {b}: {sc} "
            f"({len(lines) + 2} games; widest +-{widest:.0f}: {rung})",
            flush=True,
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", default="chess", choices=sorted(LADDERS))
    ap.add_argument("--minutes", type=float, default=45.0, help="stop starting games after this")
    ap.add_argument("--max-games", type=int, default=100_000, help="stop at this many games")
    ap.add_argument("--tc", help="time control (default: the ladder's)")
    ap.add_argument("--workers", type=int, default=2, help="games played at once")
    ap.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--results", required=True, help="JSONL of every game (appended, resumed)")
    ap.add_argument("--write", action="store_true", help="write the fit into the package")
    ap.add_argument("--fit-only", action="store_true", help="play nothing, fit what is there")
    ap.add_argument("--commit", help="the commit the games were played at (default: HEAD)")
    ap.add_argument("--markdown", action="store_true", help="print the tables of ladder.md")
    args = ap.parse_args()
    spec = LADDERS[args.variant]
    tc = args.tc or spec["tc"]
    path = Path(args.results)
    path.parent.mkdir(parents=True, exist_ok=True)
    if args.worker is not None:
        work(args, spec, path, args.worker)
        return 0
    if not args.fit_only:
        # Each worker is a process of its own (the built-in agents are Python: threads would
        # share one core), choosing its next pairing from every game so far.
        procs = [
            subprocess.Popen([sys.executable, __file__, *sys.argv[1:], "--worker", str(i)])
            for i in range(args.workers)
        ]
        for proc in procs:
            proc.wait()
    lines = read_results(path)
    agents = fit_ladder(spec, lines)
    flagged = sum(1 for line in lines if sf_flagged(line))
    crashed = sum(1 for line in lines if line.get("termination") == "crash")
    fitted = len(games_of(lines))
    abandoned = sum(1 for line in lines if line.get("termination") == "abandoned")
    replays = len(lines) - fitted - flagged - crashed - abandoned
    print(
        f"{fitted} games fitted of {len(lines)}; left out: {replays} replays, {flagged} lost "
        f"on time by Stockfish, {crashed} crashes, {abandoned} abandoned"
    )
    for name, rung in agents.items():
        print(
            f"{name:28} {rung['rating']:7.0f}  ({rung['low']:.0f} .. {rung['high']:.0f})  "
            f"{rung['games']} games"
        )
    if args.markdown:
        print(markdown(spec, lines, agents))
    if args.write:
        commit = (
            args.commit
            or subprocess.run(
                ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                capture_output=True,
                text=True,
                check=False,
            ).stdout.strip()
        )
        data = {
            "date": dt.date.today().isoformat(),
            "commit": commit or "unknown",
            "command": f"python bench/ladder.py --variant {args.variant} --results "
            f"{args.results} --tc {tc} (then --fit-only --write); "
            f"{len(games_of(lines))} games",
            "time_control": tc,
            "anchor": spec["anchor"],
            "agents": agents,
        }
        out = ROOT / "src" / "enoch" / "ratings" / spec["file"]
        out.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
