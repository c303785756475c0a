"""``enoch play``, ``enoch match`` and ``enoch tournament``: the arena from the terminal.

Handlers import the arena lazily so that ``enoch agent`` keeps its fast cold start.
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

AGENT_HELP = "exec:CMD, jsonl:CMD, http(s)://URL, uci:CMD or builtin:NAME?opts"
PLAY_MOVETIME = 0.3  # default seconds per move of the no-argument ``enoch play``


def _common(p: argparse.ArgumentParser) -> None:
    t = p.add_argument_group("time")
    t.add_argument("--movetime", type=float, metavar="S", help="seconds per move")
    t.add_argument("--tc", metavar="TC", help="game clocks: 60+0.5 (base+increment) or 40/60")
    t.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="per-answer limit when neither --movetime nor --tc is set (default: %(default)s)",
    )
    t.add_argument(
        "--grace",
        type=float,
        default=0.1,
        metavar="S",
        help="allowance over --movetime for process start and transport (default: %(default)s)",
    )
    r = p.add_argument_group("referee")
    r.add_argument(
        "--lenient",
        action="store_true",
        help="accept extra keys, missing/lowercase promotion, one JSON object in prose",
    )
    r.add_argument(
        "--retries",
        type=int,
        default=0,
        metavar="N",
        help="invalid or illegal answers forgiven per turn (default: 0, as the spec says)",
    )
    r.add_argument(
        "--memory-mb",
        type=int,
        default=2048,
        metavar="MB",
        help="address-space limit of external agents (default: %(default)s; 0 = none)",
    )
    r.add_argument(
        "--max-answer-bytes",
        type=int,
        default=64 * 1024,
        metavar="N",
        help="larger answers forfeit (default: %(default)s)",
    )


def _start(p: argparse.ArgumentParser, with_file: bool) -> None:
    g = p.add_argument_group("start positions")
    g.add_argument("--fen", metavar="FEN", help="start every game from this position")
    if with_file:
        g.add_argument(
            "--openings",
            metavar="FILE",
            help="openings: the suite format, FEN/EPD lines or PGN (default: the shipped suite)",
        )


def _outputs(p: argparse.ArgumentParser) -> None:
    o = p.add_argument_group("records")
    o.add_argument("--pgn", metavar="FILE", help="write every game as PGN")
    o.add_argument("--results", metavar="FILE", help="write one JSON line per game")
    o.add_argument("--log-dir", metavar="DIR", help="one JSONL event log per game")
    o.add_argument(
        "--concurrency", type=int, default=1, metavar="K", help="games at once (processes)"
    )


def register(sub: Any) -> None:
    p = sub.add_parser(
        "play",
        help="one game between two agents, shown as it goes",
        description="Play one game and show it move by move; print its PGN at the end. "
        "With no agents, enoch's strongest built-in agent plays itself.",
    )
    p.add_argument("white", nargs="?", metavar="A", help=f"white: {AGENT_HELP}")
    p.add_argument("black", nargs="?", metavar="B", help="black (default: the same as A)")
    _common(p)
    _start(p, with_file=False)
    p.add_argument("--moves", metavar="UCI", help="book moves played first, e.g. 'e2e4 e7e5'")
    p.add_argument("--pgn", metavar="FILE", help="also write the PGN to FILE")
    p.add_argument("--results", metavar="FILE", help="append the result as one JSON line")
    p.add_argument("--log", metavar="FILE", help="JSONL event log of every state and answer")
    p.add_argument("--quiet", action="store_true", help="show only the result and the PGN")
    p.set_defaults(func=_play)

    m = sub.add_parser(
        "match",
        help="a match between two agents: openings, concurrency, PGN, Elo, SPRT",
        description="Play a match of A against B. Colours alternate and each opening is "
        "played with both colours. Prints W/D/L, score, Elo difference with a 95%% interval "
        "and LOS; with --sprt the match stops as soon as the test decides.",
    )
    m.add_argument("a", metavar="A", help=AGENT_HELP)
    m.add_argument("b", metavar="B", help=AGENT_HELP)
    m.add_argument("--games", type=int, default=10, metavar="N", help="default: %(default)s")
    m.add_argument(
        "--first",
        type=int,
        default=0,
        metavar="N",
        help="continue an earlier run of N games: play games N+1 .. N+--games with the "
        "openings and colours one long run would give them",
    )
    m.add_argument(
        "--sprt",
        metavar="SPEC",
        nargs="?",
        const="elo0=0,elo1=10,alpha=0.05,beta=0.05",
        help="stop when decided: elo0=0,elo1=10,alpha=0.05,beta=0.05",
    )
    _common(m)
    _start(m, with_file=True)
    _outputs(m)
    m.set_defaults(func=_match)

    t = sub.add_parser(
        "tournament",
        help="a round robin (or gauntlet) between agents: crosstable and ratings",
        description="Every pair of agents plays each round one opening with both colours "
        "(--gauntlet: the first agent against each of the others).",
    )
    t.add_argument("agents", nargs="+", metavar="AGENT", help=AGENT_HELP)
    t.add_argument("--rounds", type=int, default=1, metavar="N", help="default: %(default)s")
    t.add_argument("--gauntlet", action="store_true", help="first agent against the rest")
    _common(t)
    _start(t, with_file=True)
    _outputs(t)
    t.set_defaults(func=_tournament)


# ---------------------------------------------------------------------- shared


def _config(args: argparse.Namespace, movetime: float | None = None) -> Any:
    from enoch.arena.clock import TimeControl
    from enoch.arena.referee import GameConfig
    from enoch.arena.transport import Limits
    from enoch.errors import InputError

    mt = args.movetime if args.movetime is not None else movetime
    if mt is not None and not mt > 0:
        raise InputError(f"--movetime must be positive, got {mt}")
    if args.tc and args.movetime is not None:
        raise InputError("give --movetime or --tc, not both")
    if not args.timeout > 0:
        raise InputError("--timeout must be positive")
    if args.retries < 0:
        raise InputError("--retries must be 0 or more")
    if args.max_answer_bytes < 64:
        raise InputError("--max-answer-bytes must be at least 64")
    tc = TimeControl.parse(args.tc) if args.tc else None
    return GameConfig(
        movetime=None if tc else mt,
        tc=tc,
        timeout=args.timeout,
        grace=args.grace,
        lenient=args.lenient,
        retries=args.retries,
        limits=Limits(
            max_answer_bytes=args.max_answer_bytes,
            memory_mb=args.memory_mb or None,
        ),
    )


def _check_agent(spec: str) -> None:
    from enoch.errors import InputError

    if spec.startswith("builtin:"):
        from enoch.agents.registry import BUILTINS, parse_builtin

        name, _ = parse_builtin(spec)
        if name not in BUILTINS:
            raise InputError(f"unknown builtin agent {name!r} (known: {', '.join(BUILTINS)})")
        return
    if not spec.startswith(("exec:", "jsonl:", "uci:", "http://", "https://")):
        raise InputError(f"unknown agent {spec!r}: expected {AGENT_HELP}")
    if spec.startswith(("exec:", "jsonl:", "uci:")) and not spec.partition(":")[2].strip():
        raise InputError(f"agent {spec!r} has an empty command")


def strongest_builtin() -> str:
    from enoch.agents.registry import BUILTINS

    return "builtin:engine" if "engine" in BUILTINS else "builtin:greedy"


# ---------------------------------------------------------------------- play


def _play(args: argparse.Namespace) -> int:
    import chess

    from enoch.arena.records import JsonlWriter, PgnWriter, pgn_text
    from enoch.arena.referee import COLOURS, Referee, play_game
    from enoch.rules import STARTING_FEN

    default_movetime = None
    white = args.white
    if white is None:
        white = strongest_builtin()
        default_movetime = PLAY_MOVETIME
    black = args.black or white
    for spec in (white, black):
        _check_agent(spec)
    config = _config(args, default_movetime)
    start_fen = args.fen or STARTING_FEN
    book = args.moves.split() if args.moves else []

    from rich.console import Console

    console = Console(stderr=False, highlight=False)
    board = chess.Board(start_fen)
    for text in book:
        board.push_uci(text)

    def on_move(ref: Referee, info: dict[str, Any]) -> None:
        move = chess.Move.from_uci(_last_uci(ref))
        number = board.fullmove_number
        dots = "." if board.turn == chess.WHITE else "..."
        san = board.san(move)
        board.push(move)
        if args.quiet:
            return
        side = info["player"]
        raw = info["raw"]
        shown = raw if isinstance(raw, str) else _compact(raw, ref)
        clock = ""
        if ref.clock is not None:
            w, b = ref.clock.remaining
            clock = f"   clocks  white {w:7.2f}s  black {b:7.2f}s"
        console.print(
            f"\n{number}{dots} {san}   [{COLOURS[side]}: {ref.players[side].name}, "
            f"{info['elapsed']:.3f}s]{clock}",
            markup=False,
        )
        console.print(f"answer: {shown.strip()[:200]}", markup=False)
        console.print(_board(board, console.is_terminal, move))

    log = JsonlWriter(args.log, mode="w") if args.log else None
    if not args.quiet:
        console.print(f"{white} (white) vs {black} (black)", markup=False)
        console.print(_board(board, console.is_terminal))
    try:
        result = play_game(
            white,
            black,
            start_fen=start_fen,
            book_moves=book,
            config=config,
            log=log,
            on_move=on_move,
        )
    finally:
        if log is not None:
            log.close()
    console.print(f"\n{result.result}  {result.termination}: {result.reason}", markup=False)
    text = pgn_text(result, event="enoch play", round_="1")
    sys.stdout.write("\n" + text)
    if args.pgn:
        PgnWriter(args.pgn, mode="w").write(result, event="enoch play", round_="1")
    if args.results:
        w = JsonlWriter(args.results)
        w({"game": 1, **result.to_json()})
        w.close()
    return 0


def _last_uci(ref: Any) -> str:
    from enoch.rules import move_uci

    text: str = move_uci(ref.moves[-1])
    return text


def _compact(raw: Any, ref: Any) -> str:
    import json

    if isinstance(raw, int):
        from enoch.protocol import move_answer

        return json.dumps(move_answer(raw))
    return json.dumps(raw)


_GLYPHS = {"p": "♟", "n": "♞", "b": "♝", "r": "♜", "q": "♛", "k": "♚"}


def _board(board: Any, colour: bool, last: Any = None) -> Any:
    """The board as people see one: men on light and dark squares, the last move's squares
    marked, when the output is a terminal; the plain text board otherwise (pipes, logs)."""
    from rich.text import Text

    if not colour:
        return Text(_board_text(board))
    marked = {last.from_square, last.to_square} if last is not None else set()
    text = Text()
    for rank in range(7, -1, -1):
        text.append(f" {rank + 1} ", style="dim")
        for file in range(8):
            sq = rank * 8 + file
            light = (rank + file) % 2 == 1
            if sq in marked:
                bg = "#cdd26a" if light else "#aaa23a"
            else:
                bg = "#f0d9b5" if light else "#b58863"
            piece = board.piece_at(sq)
            if piece is None:
                text.append("   ", style=f"on {bg}")
            else:
                fg = "bold #ffffff" if piece.color else "bold #000000"
                text.append(f" {_GLYPHS[piece.symbol().lower()]} ", style=f"{fg} on {bg}")
        text.append("\n")
    text.append("    a  b  c  d  e  f  g  h", style="dim")
    return text


def _board_text(board: Any) -> str:
    rows = []
    for rank in range(7, -1, -1):
        cells = []
        for file in range(8):
            piece = board.piece_at(rank * 8 + file)
            cells.append(piece.symbol() if piece else ".")
        rows.append(f"  {rank + 1} " + " ".join(cells))
    rows.append("    a b c d e f g h")
    return "\n".join(rows)


# ---------------------------------------------------------------------- match


def _fmt_elo(elo: tuple[float, float, float]) -> str:
    e, lo, hi = elo
    if math.isinf(e):
        return "+inf" if e > 0 else "-inf"
    if math.isinf(lo) or math.isinf(hi):
        return f"{e:+.1f} (interval unbounded)"
    return f"{e:+.1f} ± {(hi - lo) / 2:.1f}  [{lo:+.1f}, {hi:+.1f}]"


def _match(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
    from rich.table import Table

    from enoch.arena.match import run_match, start_positions, unique_names
    from enoch.arena.stats import Sprt
    from enoch.errors import InputError

    for spec in (args.a, args.b):
        _check_agent(spec)
    if args.games < 1:
        raise InputError("--games must be at least 1")
    if args.concurrency < 1:
        raise InputError("--concurrency must be at least 1")
    config = _config(args)
    openings = start_positions(args.fen, args.openings)
    sprt = Sprt.parse(args.sprt) if args.sprt else None
    names = unique_names([args.a, args.b])
    err = Console(stderr=True)
    out = Console(highlight=False)

    with Progress(
        TextColumn("[bold]match"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.description}"),
        console=err,
        transient=True,
    ) as progress:
        task = progress.add_task("", total=args.games)

        def on_result(outcome: Any, game: Any, result: Any) -> bool:
            sc = outcome.score(0)
            desc = f"+{sc.wins} ={sc.draws} -{sc.losses}  score {sc.fraction:.3f}"
            if sprt is not None:
                lo, hi = sprt.bounds()
                desc += f"  LLR {sprt.llr(sc):+.2f} [{lo:.2f}, {hi:.2f}]"
            progress.update(task, advance=1, description=desc)
            return False

        outcome = run_match(
            args.a,
            args.b,
            games=args.games,
            first=args.first,
            openings=openings,
            sprt=sprt,
            on_result=on_result,
            names=names,
            config=config,
            concurrency=args.concurrency,
            pgn=args.pgn,
            results=args.results,
            log_dir=args.log_dir,
        )
    sc = outcome.score(0)
    table = Table(title=f"{names[0]} vs {names[1]}")
    for col in ("games", "wins", "draws", "losses", "score", "Elo (95%)", "LOS"):
        table.add_column(col, justify="right")
    table.add_row(
        str(sc.games),
        str(sc.wins),
        str(sc.draws),
        str(sc.losses),
        f"{sc.points:g}/{sc.games} ({100 * sc.fraction:.1f}%)",
        _fmt_elo(sc.elo()),
        f"{100 * sc.los():.1f}%",
    )
    out.print(table)
    terms: dict[str, int] = {}
    for _, r in outcome.games:
        terms[r.termination] = terms.get(r.termination, 0) + 1
    out.print(
        "terminations: " + ", ".join(f"{k} {v}" for k, v in sorted(terms.items())), markup=False
    )
    if sprt is not None:
        lo, hi = sprt.bounds()
        verdict = {
            "H1": f"H1 accepted (elo >= {sprt.elo1:g})",
            "H0": f"H0 accepted (elo <= {sprt.elo0:g})",
            None: "undecided",
        }[outcome.stopped_by_sprt]
        out.print(
            f"SPRT elo0={sprt.elo0:g} elo1={sprt.elo1:g} alpha={sprt.alpha:g} "
            f"beta={sprt.beta:g}: LLR {sprt.llr(sc):+.2f} [{lo:.2f}, {hi:.2f}], {verdict}",
            markup=False,
        )
    return 0


# ---------------------------------------------------------------------- tournament


def _tournament(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
    from rich.table import Table

    from enoch.arena.match import (
        run_tournament,
        start_positions,
        tournament_ratings,
        tournament_schedule,
        unique_names,
    )
    from enoch.errors import InputError

    if len(args.agents) < 2:
        raise InputError("a tournament needs at least two agents")
    if args.rounds < 1 or args.concurrency < 1:
        raise InputError("--rounds and --concurrency must be at least 1")
    for spec in args.agents:
        _check_agent(spec)
    config = _config(args)
    openings = start_positions(args.fen, args.openings)
    names = unique_names(args.agents)
    from enoch.openings import default_suite

    total = len(
        tournament_schedule(
            len(args.agents), args.rounds, openings or default_suite(), gauntlet=args.gauntlet
        )
    )
    err = Console(stderr=True)
    out = Console(highlight=False)
    with Progress(
        TextColumn("[bold]tournament"),
        BarColumn(),
        MofNCompleteColumn(),
        console=err,
        transient=True,
    ) as progress:
        task = progress.add_task("", total=total)

        def on_result(outcome: Any, game: Any, result: Any) -> bool:
            progress.update(task, advance=1)
            return False

        outcome = run_tournament(
            args.agents,
            rounds=args.rounds,
            gauntlet=args.gauntlet,
            openings=openings,
            on_result=on_result,
            names=names,
            config=config,
            concurrency=args.concurrency,
            pgn=args.pgn,
            results=args.results,
            log_dir=args.log_dir,
        )
    rated = tournament_ratings(outcome)
    order = sorted(range(len(names)), key=lambda i: -rated[names[i]][0])
    table = Table(title="crosstable" + (" (gauntlet)" if args.gauntlet else ""))
    table.add_column("#", justify="right")
    table.add_column("agent")
    table.add_column("Elo", justify="right")
    table.add_column("points", justify="right")
    for k in range(len(order)):
        table.add_column(str(k + 1), justify="center")
    for rank, i in enumerate(order, 1):
        elo, margin = rated[names[i]]
        total_sc = outcome.score(i)
        cells = []
        for j in order:
            if j == i:
                cells.append("—")
                continue
            sc = outcome.score(i, j)
            cells.append(f"{sc.points:g}/{sc.games}" if sc.games else "")
        table.add_row(
            str(rank),
            names[i],
            f"{elo:+.0f} ± {margin:.0f}" if math.isfinite(margin) else f"{elo:+.0f}",
            f"{total_sc.points:g}/{total_sc.games}",
            *cells,
        )
    out.print(table)
    return 0
