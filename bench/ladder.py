"""Measure the rating ladder: play its pairings, fit the ratings, write ``ladder.json``.

Usage::

    python bench/ladder.py --minutes 45 --results bench/results/ladder.jsonl --write
    python bench/ladder.py --variant enochian --minutes 5 \\
        --results bench/results/ladder-enochian.jsonl --write

Chess: each rung (random, greedy, MicroChess, the engine's levels) is rated by games against
Debian Stockfish 15.1's ``UCI_LimitStrength``/``UCI_Elo`` levels, held fixed at their labels.
Rungs too weak to score against Stockfish's lowest level (1350) are chained: random plays
greedy, greedy plays MicroChess, MicroChess plays the low engine levels, which play Stockfish.
One maximum-likelihood fit over every game (``enoch.ratings.maths.fit``) gives each rung its
rating and 95% interval, the chain's uncertainty included. Enochian has no outside anchor:
``builtin:random`` is held at 0.

The games are played in rounds, each pairing one opening from both colours per round, so that
whenever the run stops every pairing has about as many games. Every game is appended to
``--results`` as it ends; a new run with the same file continues each pairing where it stopped
(its next openings), so the budget can be spent in several runs. ``--write`` writes the fit
into ``src/enoch/ratings/`` with the date, the commit and this command.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from enoch.arena.clock import TimeControl
from enoch.arena.match import run_match
from enoch.arena.referee import GameConfig
from enoch.game.registry import find_game
from enoch.ratings.maths import fit

ROOT = Path(__file__).resolve().parent.parent
SF = "uci:/usr/games/stockfish?UCI_LimitStrength=true&UCI_Elo="


# Played with a larger Move Overhead than Stockfish's 10 ms: on a loaded machine it lost games
# on time by a few milliseconds, which measures the machine, not the level. The name in the
# ladder and the fit is without it (it changes no move: the level picks at a fixed depth).
SF_PLAYED = "&Move+Overhead=200"


def sf(elo: int) -> str:
    return f"{SF}{elo}"


def played_as(name: str) -> str:
    return name + SF_PLAYED if name.startswith(SF) else name


# The engine levels' first labels, under which the games of 2026-11-27 were played; the labels
# were then moved to the measured ratings with the same parameters (engine/levels.py, and a
# test that the parameters are the ones measured).
RENAMED = {
    "builtin:engine?elo=800": "builtin:engine?elo=150",
    "builtin:engine?elo=1200": "builtin:engine?elo=600",
    "builtin:engine?elo=1600": "builtin:engine?elo=1250",
    "builtin:engine?elo=2000": "builtin:engine?elo=1650",
}


def canonical(name: str) -> str:
    name = name.replace(SF_PLAYED, "")
    return RENAMED.get(name, name)


# Rungs and anchors, and the pairings that connect them (each a chain link or a measurement).
LADDERS: dict[str, dict[str, Any]] = {
    "chess": {
        "file": "ladder.json",
        "tc": "10+0.1",
        "anchor": "Stockfish 15.1 (Debian) UCI_LimitStrength/UCI_Elo levels, held at their labels",
        "rungs": [
            "builtin:random",
            "builtin:greedy",
            "builtin:microchess",
            "builtin:engine?elo=150",
            "builtin:engine?elo=600",
            "builtin:engine?elo=1250",
            "builtin:engine?elo=1650",
        ],
        "fixed": {sf(1350): 1350.0, sf(1600): 1600.0, sf(2000): 2000.0},
        "pairs": [
            ("builtin:random", "builtin:greedy"),
            ("builtin:greedy", "builtin:microchess"),
            ("builtin:greedy", "builtin:engine?elo=150"),
            ("builtin:microchess", "builtin:engine?elo=150"),
            ("builtin:microchess", "builtin:engine?elo=600"),
            ("builtin:engine?elo=150", "builtin:engine?elo=600"),
            ("builtin:engine?elo=600", sf(1350)),
            ("builtin:engine?elo=600", "builtin:engine?elo=1250"),
            ("builtin:engine?elo=1250", sf(1350)),
            ("builtin:engine?elo=1250", sf(1600)),
            ("builtin:engine?elo=1650", sf(1600)),
            ("builtin:engine?elo=1650", sf(2000)),
        ],
    },
    "enochian": {
        "file": "ladder-enochian.json",
        "tc": "60+0.5",
        "anchor": "enoch's Enochian agents, builtin:random held at 0 (no outside anchor)",
        "rungs": [
            "builtin:random",
            "builtin:greedy",
            "builtin:search?movetime=0.05",
            "builtin:search?movetime=0.2",
        ],
        "fixed": {"builtin:random": 0.0},
        "pairs": [
            ("builtin:random", "builtin:greedy"),
            ("builtin:greedy", "builtin:search?movetime=0.05"),
            ("builtin:random", "builtin:search?movetime=0.05"),
            ("builtin:search?movetime=0.05", "builtin:search?movetime=0.2"),
            ("builtin:greedy", "builtin:search?movetime=0.2"),
        ],
    },
}


def read_results(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            out.append(json.loads(line))
    return out


def games_of(lines: list[dict[str, Any]]) -> list[tuple[str, str, float]]:
    """``(seat 0's agent, seat 1's agent, seat 0's points)`` of every counted game: not
    ``abandoned``, not a ``crash`` (a bug, not a level: two games of the first run, an
    overflow in the levels' softmax since fixed) and not lost on time by Stockfish."""
    return [
        (canonical(line["seats"][0]), canonical(line["seats"][1]), float(line["points"][0]))
        for line in lines
        if line.get("termination") not in ("abandoned", "crash") and not sf_flagged(line)
    ]


def sf_flagged(line: dict[str, Any]) -> bool:
    """Stockfish lost on time: the machine's load (other jobs starve it for a few
    milliseconds at 10+0.1), not its level; such games are left out of the fit and counted."""
    if line.get("termination") != "timeout" or line.get("winner") is None:
        return False
    loser = line["seats"][1 - int(line["winner"])]
    return bool(canonical(loser).startswith(SF))


def pair_key(line: dict[str, Any]) -> tuple[str, str]:
    return canonical(line["pair_a"]), canonical(line["pair_b"])


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
    """The rung table and the pairings' results (from the first agent's side)."""
    out = ["| rung | rating | 95% interval | games |", "| --- | ---: | --- | ---: |"]
    for name, rung in agents.items():
        out.append(
            f"| `{name}` | {rung['rating']:.0f} | {rung['low']:.0f} .. {rung['high']:.0f} "
            f"| {rung['games']} |"
        )
    for name, rating in spec["fixed"].items():
        out.append(f"| `{name}` (anchor) | {rating:.0f} | held | |")
    out += ["", "| pairing | games | W-D-L (first's side) | score |", "| --- | ---: | --- | ---: |"]
    table: dict[tuple[str, str], list[int]] = {}
    counted = {id(x) for x in lines if x in _counted(lines)}
    for line in lines:
        if id(line) not in counted:
            continue
        a, b = pair_key(line)
        first = canonical(line["seats"][0]) == a
        p = float(line["points"][0 if first else 1])
        cell = table.setdefault((a, b), [0, 0, 0])
        cell[0 if p == 1 else 1 if p == 0.5 else 2] += 1
    for (a, b), (w, d, lo) in table.items():
        n = w + d + lo
        out.append(f"| `{a}` - `{b}` | {n} | {w}-{d}-{lo} | {(w + d / 2) / n:.3f} |")
    return "\n".join(out)


def _counted(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        x for x in lines if x.get("termination") not in ("abandoned", "crash") and not sf_flagged(x)
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", default="chess", choices=sorted(LADDERS))
    ap.add_argument("--minutes", type=float, default=45.0, help="stop starting rounds after this")
    ap.add_argument("--rounds", type=int, default=1000, help="at most this many rounds")
    ap.add_argument("--tc", help="time control (default: the ladder's)")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--results", required=True, help="JSONL of every game (appended, resumed)")
    ap.add_argument("--write", action="store_true", help="write the fit into the package")
    ap.add_argument("--fit-only", action="store_true", help="play nothing, fit what is there")
    ap.add_argument("--commit", help="the commit the games were played at (default: HEAD)")
    ap.add_argument("--markdown", action="store_true", help="print the tables of ladder.md")
    args = ap.parse_args()
    spec = LADDERS[args.variant]
    tc = args.tc or spec["tc"]
    rules = find_game(args.variant)
    setup = rules.setup(max_plies=rules.default_max_plies)  # as the CLI: Enochian 400
    starts = rules.starts(setup)
    config = GameConfig(tc=TimeControl.parse(tc))
    path = Path(args.results)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = read_results(path)
    done: dict[tuple[str, str], int] = {}
    for line in lines:
        done[pair_key(line)] = done.get(pair_key(line), 0) + 1
    stop_at = time.monotonic() + 60 * args.minutes
    started = time.monotonic()
    for rnd in range(args.rounds):
        if args.fit_only or time.monotonic() >= stop_at:
            break
        for a, b in spec["pairs"]:
            if time.monotonic() >= stop_at:
                break
            first = done.get((a, b), 0)
            outcome = run_match(
                played_as(a),
                played_as(b),
                variant=rules,
                setup=setup,
                games=2,
                first=first,
                starts=starts,
                config=config,
                concurrency=args.concurrency,
            )
            with path.open("a", encoding="utf-8") as fh:
                for sched, result in outcome.games:
                    line = {
                        "game": sched.index,
                        "pair_a": a,
                        "pair_b": b,
                        **result.to_json(),
                    }
                    fh.write(json.dumps(line) + "\n")
                    lines.append(line)
            done[(a, b)] = first + len(outcome.games)
            sc = [r.points[g.seats.index(0)] for g, r in outcome.games]
            elapsed = (time.monotonic() - started) / 60
            print(
                f"[{elapsed:5.1f} min] round {rnd + 1}: {a} vs {b}: {sc} "
                f"({done[(a, b)]} games, {len(lines)} in all)",
                flush=True,
            )
    agents = fit_ladder(spec, lines)
    flagged = sum(1 for line in lines if sf_flagged(line))
    crashed = sum(1 for line in lines if line.get("termination") == "crash")
    print(
        f"{len(games_of(lines))} games fitted of {len(lines)}; left out: {flagged} lost on "
        f"time by Stockfish, {crashed} crashes"
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
