"""``enoch analyse`` (a PGN judged move by move) and ``enoch leaderboard`` (one table over
results files).

Both commands live here, the part that judges play; the leaderboard's library is
:mod:`enoch.ratings.leaderboard`. Handlers import their work lazily (``enoch agent``'s cold
start).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

ENGINE_HELP = "builtin:engine (default, in-process; ?hash=MB) or uci:CMD?Option=Value"


def _engine_flags(p: argparse.ArgumentParser, nodes: int) -> None:
    p.add_argument("--engine", default="builtin:engine", metavar="SPEC", help=ENGINE_HELP)
    p.add_argument(
        "--nodes",
        type=int,
        default=nodes,
        metavar="N",
        help="nodes searched per position (default: %(default)s): the same judgement on "
        "every machine",
    )


def register(sub: Any) -> None:
    from enoch.analysis import DEFAULT_NODES

    a = sub.add_parser(
        "analyse",
        aliases=["analyze"],
        help="judge every move of a PGN: evaluations, centipawn loss, blunders, accuracy",
        description="Every move of every game judged by an engine at a fixed node budget, "
        "classed as lichess does (best, good, inaccuracy, mistake, blunder), with each side's "
        "average centipawn loss and accuracy. Prints an annotated PGN, or JSON with --json.",
    )
    a.add_argument("pgn", metavar="FILE.pgn", help="the games")
    _engine_flags(a, DEFAULT_NODES)
    a.add_argument("--json", action="store_true", help="JSON instead of an annotated PGN")
    a.set_defaults(func=_analyse)

    lb = sub.add_parser(
        "leaderboard",
        help="one table over results files: W/D/L, rating, failures, time, tokens, cost",
        description="Every agent of the results files (enoch match/tournament --results, "
        "both games): games, wins/draws/losses, a Bradley-Terry rating with its 95% "
        "interval (anchored to the calibrated ladder when ladder agents took part), illegal "
        "and invalid answers per 1000 moves, seconds and tokens per move and cost; with "
        "--analyse also the average centipawn loss and accuracy of chess play.",
    )
    lb.add_argument("results", nargs="+", metavar="RESULTS.jsonl", help="results files")
    lb.add_argument(
        "--analyse",
        "--analyze",
        action="store_true",
        help="judge every chess move with the engine (slow: see --nodes)",
    )
    _engine_flags(lb, DEFAULT_NODES)
    lb.add_argument("--json", action="store_true", help="JSON instead of a table")
    lb.set_defaults(func=_leaderboard)


class _Bar:
    """Progress on stderr: a live bar on a terminal, a line per game otherwise."""

    def __init__(self, label: str, total_games: int) -> None:
        self.label = label
        self.total = total_games
        self.live = sys.stderr.isatty()
        self.progress: Any = None
        self.task: Any = None
        if self.live:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            self.progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self.progress.start()
            self.task = self.progress.add_task(label, total=None)

    def game(self, index: int) -> Any:
        def on_position(done: int, total: int) -> None:
            if self.live:
                self.progress.update(
                    self.task,
                    description=f"{self.label} game {index}/{self.total}",
                    completed=done,
                    total=total,
                )
            elif done == total and self.total > 1:
                sys.stderr.write(f"{self.label}: game {index}/{self.total} ({total - 1} plies)\n")
                sys.stderr.flush()

        return on_position

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()


def _analyse(args: argparse.Namespace) -> int:
    from enoch.analysis.analyse import analyse_pgn_game, annotated_pgn, read_pgn
    from enoch.analysis.engines import make_evaluator

    games = read_pgn(args.pgn)
    evaluator = make_evaluator(args.engine, args.nodes)
    bar = _Bar("analyse", len(games))
    annotator = f"enoch analyse ({evaluator.name}, {args.nodes} nodes per position)"
    out = []
    try:
        for i, game in enumerate(games, 1):
            analysis = analyse_pgn_game(game, evaluator, bar.game(i))
            if args.json:
                out.append(analysis.to_json())
            else:
                sys.stdout.write(annotated_pgn(analysis, annotator))
                sys.stdout.flush()
    finally:
        bar.close()
        evaluator.close()
    if args.json:
        sys.stdout.write(json.dumps({"games": out}, indent=1) + "\n")
    return 0


def _leaderboard(args: argparse.Namespace) -> int:
    from enoch.ratings.leaderboard import build, read_results, render

    games = read_results(args.results)
    bar = _Bar("leaderboard --analyse", sum(1 for g in games if g.variant == "chess"))
    try:
        board = build(
            games,
            analyse=args.analyse,
            engine=args.engine,
            nodes=args.nodes,
            progress=bar.game if args.analyse else None,
        )
    finally:
        bar.close()
    if args.json:
        sys.stdout.write(json.dumps(board.to_json(), indent=1) + "\n")
    else:
        render(board)
    return 0
