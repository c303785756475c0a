"""``enoch rate AGENT``: an agent's rating on the calibrated ladder, with its interval.

Only argparse is imported at module level (the cold start of ``enoch agent``); the arena and
the maths are imported when the command runs.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

DEFAULT_GAMES = 20


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "rate",
        help="rate an agent against the calibrated ladder (rating and 95%% interval)",
        description=(
            "Rate AGENT with an adaptive gauntlet against the ladder of built-in agents whose "
            "ratings were measured against Stockfish 15.1's UCI_Elo levels: each pair of games "
            "(one opening, both colours) against the rung nearest the current estimate, then "
            "the maximum-likelihood rating with the ladder held fixed, draws as half, and its "
            "95% interval. Enochian has no outside anchor: its scale is enoch's Enochian "
            "agents with builtin:random at 0."
        ),
    )
    p.add_argument("agent", metavar="AGENT", help="any arena agent name (enoch play --help)")
    p.add_argument(
        "--variant", "-variant", default="chess", metavar="NAME", help="chess (default) or enochian"
    )
    p.add_argument(
        "--games",
        type=int,
        default=DEFAULT_GAMES,
        metavar="N",
        help="games to play (default: %(default)s; about 100 for +-100 Elo)",
    )
    p.add_argument(
        "--tc",
        metavar="TC",
        help="game clocks (default: the ladder's time control, at which its ratings hold)",
    )
    p.add_argument(
        "--concurrency", type=int, default=1, metavar="K", help="games at once (at most 2)"
    )
    p.add_argument("--results", metavar="FILE", help="write every game as a JSON line")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=handler)


def _num(x: float) -> float | None:
    return round(x, 1) if math.isfinite(x) else None


def handler(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
    from rich.table import Table

    from enoch.arena.clock import TimeControl
    from enoch.arena.referee import GameConfig
    from enoch.errors import InputError
    from enoch.game.registry import find_game
    from enoch.ratings.ladder import load_ladder
    from enoch.ratings.rate import MAX_GAMES, rate

    if not 1 <= args.games <= MAX_GAMES:
        raise InputError(f"--games must be 1 .. {MAX_GAMES}, got {args.games}")
    if args.concurrency < 1:
        raise InputError("--concurrency must be at least 1")
    from enoch.arena.players import check_agent

    game = find_game(args.variant)
    check_agent(args.agent.strip(), game)
    ladder = load_ladder(game.name)
    tc = TimeControl.parse(args.tc or ladder["time_control"])
    results_file = None
    if args.results:
        try:
            results_file = open(args.results, "w", encoding="utf-8")  # noqa: SIM115
        except OSError as exc:
            raise InputError(f"--results {args.results[:200]}: {exc.strerror or exc}") from None
    err = Console(stderr=True)
    out = Console(highlight=False)

    def write(line: dict[str, Any]) -> None:
        if results_file is not None:
            results_file.write(json.dumps(line) + "\n")
            results_file.flush()

    try:
        with Progress(
            TextColumn("[bold]rate"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.description}"),
            console=err,
            transient=True,
            disable=args.json and not err.is_terminal,
        ) as progress:
            task = progress.add_task("", total=args.games)

            def on_game(done: int, opp: str, result: Any, est: tuple[float, float, float]) -> None:
                r, lo, hi = est
                text = f"last vs {opp}; estimate {r:.0f}"
                if math.isfinite(lo) and math.isfinite(hi):
                    text += f" ({lo:.0f} .. {hi:.0f})"
                progress.update(task, completed=done, description=text)

            found = rate(
                args.agent,
                variant=game.name,
                games=args.games,
                config=GameConfig(tc=tc),
                ladder=ladder,
                concurrency=min(args.concurrency, 2),
                on_game=on_game,
                results=write,
            )
    finally:
        if results_file is not None:
            results_file.close()
    if args.json:
        data = found.to_json()
        data.update(rating=_num(found.rating), low=_num(found.low), high=_num(found.high))
        sys.stdout.write(json.dumps(data) + "\n")
        return 0
    table = Table(title=f"{found.agent} against the {found.variant} ladder")
    for col in ("opponent", "rating", "wins", "draws", "losses"):
        table.add_column(col, justify="left" if col == "opponent" else "right")
    for o in found.opponents:
        if o.wins + o.draws + o.losses:
            table.add_row(o.agent, f"{o.rating:.0f}", str(o.wins), str(o.draws), str(o.losses))
    out.print(table)
    interval = (
        f"95%: {found.low:.0f} .. {found.high:.0f}"
        if math.isfinite(found.low) and math.isfinite(found.high)
        else "no interval: no game counted"
    )
    out.print(
        f"{found.agent}: rating {found.rating:.0f} ({interval}) after {found.games} games at {tc}",
        markup=False,
    )
    out.print(f"scale: {found.scale}", markup=False)
    return 0
