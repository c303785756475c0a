"""``enoch play``, ``enoch match`` and ``enoch tournament``: the arena from the terminal.

One set of commands and flags for every game: ``--variant chess|enochian`` (chess by default;
cutechess-cli calls it ``-variant``) and ``--option KEY=VALUE`` for the game's declared options
(``enoch play --variant enochian --option players=4``). Agent names are the game's own
(``builtin:random`` is a chess agent in chess and an Enochian one in Enochian), and a name the
game does not have is refused before any game starts.

Handlers import the arena lazily so that ``enoch agent`` keeps its fast cold start.
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

from enoch._numbers import arg, seconds  # light: re, math and enoch.errors

AGENT_HELP = (
    "builtin:NAME?opts, human, exec:CMD, jsonl:CMD, http(s)://URL, llm:MODEL?opts, uci:CMD (chess)"
)
PLAY_MOVETIME = 0.3  # default seconds per move of the no-argument ``enoch play``
STRONGEST = {"chess": "builtin:engine", "enochian": "builtin:search"}
BACKEND_DEFAULTS = {
    "backend": "local",
    "address": None,
    "dashboard": False,
    "resume": None,
    "game_timeout": None,
}
_IN_PROCESS = ("builtin:", "human", "http://", "https://", "llm:")  # agents that start no process


def _variant(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("game")
    g.add_argument(
        "--variant",
        "-variant",
        default="chess",
        metavar="NAME",
        help="the game: chess (default) or enochian",
    )
    g.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a game option, repeatable (enoch variants lists them): e.g. players=4, "
        "array=all, divination=true (enochian), fen=FEN (chess)",
    )
    g.add_argument(
        "--max-plies",
        type=arg("int", 1, 1_000_000),
        metavar="N",
        help="adjudicate a draw (move_limit) after N plies (default: chess none, enochian 400)",
    )


def _common(p: argparse.ArgumentParser) -> None:
    _variant(p)
    t = p.add_argument_group("time")
    t.add_argument("--movetime", type=seconds(), metavar="S", help="seconds per move")
    t.add_argument("--tc", metavar="TC", help="game clocks: 60+0.5 (base+increment) or 40/60")
    t.add_argument(
        "--timeout",
        type=seconds(),
        default=60.0,
        metavar="S",
        help="per-answer limit when neither --movetime nor --tc is set (default: %(default)s)",
    )
    t.add_argument(
        "--grace",
        type=seconds(positive=False),
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
        type=arg("int", 0, 1000),
        default=0,
        metavar="N",
        help="invalid or illegal answers forgiven per turn (default: 0, as the protocol says)",
    )
    r.add_argument(
        "--memory-mb",
        type=arg("int", 0, 1 << 24),
        default=2048,
        metavar="MB",
        help="address-space limit of external agents (default: %(default)s; 0 = none)",
    )
    r.add_argument(
        "--no-sandbox",
        action="store_true",
        help="run external agents without a PID namespace of their own (then a process they "
        "start with setsid can outlive the game); see docs/security.md",
    )
    r.add_argument(
        "--no-network",
        action="store_true",
        help="give external agents an empty network namespace (refused where impossible)",
    )
    r.add_argument(
        "--max-answer-bytes",
        type=arg("int", 64, 1 << 30),
        default=64 * 1024,
        metavar="N",
        help="larger answers forfeit as invalid_answer (default: %(default)s)",
    )
    r.add_argument(
        "--allow-insecure",
        action="store_true",
        help="let llm: agents send their API key over plain http to a host that is not loopback",
    )
    s = p.add_argument_group("start positions")
    s.add_argument("--fen", metavar="FEN", help="chess: start every game here (= --option fen=)")
    s.add_argument(
        "--openings",
        metavar="FILE",
        help="chess: openings file (suite format, FEN/EPD lines or PGN; default: shipped suite)",
    )
    s.add_argument("--moves", metavar="UCI", help="chess: book moves played first, 'e2e4 e7e5'")
    o = p.add_argument_group("records")
    o.add_argument(
        "--record",
        "--pgn",
        dest="record",
        metavar="FILE",
        help="write every game in the game's record format (PGN for chess)",
    )
    o.add_argument("--results", metavar="FILE", help="write one JSON line per game")
    o.add_argument("--log-dir", metavar="DIR", help="one JSONL event log per game")


def _outputs(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--concurrency",
        type=arg("int", 1, 1024),
        default=None,
        metavar="K",
        help="games at once: local worker processes (default 1; threads when the agents wait "
        "on the network: llm:, http(s)://, with builtin:random), or the workers of a local "
        "Dask cluster (default: one per core)",
    )
    d = p.add_argument_group("where games run (docs/distributed.md)")
    d.add_argument(
        "--backend",
        choices=("local", "dask"),
        default="local",
        help="local: this machine's processes (default); dask: a Dask cluster (enoch[dask])",
    )
    d.add_argument(
        "--address",
        metavar="tcp://HOST:PORT",
        help="with --backend dask: join this running scheduler (default: start a local "
        "cluster on 127.0.0.1)",
    )
    d.add_argument(
        "--dashboard", action="store_true", help="with a local Dask cluster: serve its dashboard"
    )
    d.add_argument(
        "--resume",
        metavar="RESULTS",
        help="go on with the run that wrote this results file: its games are not played "
        "again, new ones are appended",
    )
    d.add_argument(
        "--game-timeout",
        type=float,
        metavar="S",
        help="cancel a game still playing after S seconds (recorded as abandoned, not rated)",
    )


def _backend(args: argparse.Namespace, schedule: Any, names: list[str]) -> Any:
    """The backend, its workers checked and the --resume file read, before any progress bar
    (an error is one line) and any game."""
    import enoch
    from enoch.arena.backends import agent_commands, make_backend
    from enoch.arena.match import read_recorded
    from enoch.errors import InputError

    for key, default in BACKEND_DEFAULTS.items():  # callers that build their own Namespace
        if not hasattr(args, key):
            setattr(args, key, default)
    if args.game_timeout is not None and not (
        math.isfinite(args.game_timeout) and args.game_timeout > 0
    ):
        raise InputError("--game-timeout must be a positive number of seconds")
    if args.dashboard and (args.backend != "dask" or args.address):
        raise InputError("--dashboard needs --backend dask without --address")
    if args.resume is not None:
        read_recorded(args.resume, {g.index: g for g in schedule}, names)
    from enoch.arena.match import network_bound

    backend = make_backend(
        args.backend,
        args.concurrency,
        address=args.address,
        dashboard=args.dashboard,
        threads=network_bound(args.agents),
    )
    try:
        backend.check(agent_commands(args.agents), enoch.__version__)
    except BaseException:
        backend.close()
        raise
    return backend


def register(sub: Any) -> None:
    p = sub.add_parser(
        "play",
        help="one game between agents (or you: human), shown as it goes",
        description="Play one game and show it move by move; print its record (PGN for chess) "
        "at the end. With no agents, the game's strongest built-in agent plays itself; with "
        "one, it plays every seat. 'human' is you, at the terminal.",
    )
    p.add_argument("agents", nargs="*", metavar="AGENT", help=f"one per seat: {AGENT_HELP}")
    _common(p)
    p.add_argument("--log", metavar="FILE", help="JSONL event log of every state and answer")
    p.add_argument("--quiet", action="store_true", help="show only the result and the record")
    p.set_defaults(func=_play)

    m = sub.add_parser(
        "match",
        help="a match between agents: starts rotated, concurrency, records, Elo, SPRT",
        description="Play a match: one agent per seat (2 for chess; 2 or 4 for enochian). "
        "Seats rotate every game and each start (opening, array) is played from every seat. "
        "Prints W/D/L, score, Elo difference with a 95% interval and LOS (two agents), "
        "points and ratings (four); with --sprt the match stops as soon as the test decides.",
    )
    m.add_argument("agents", nargs="+", metavar="AGENT", help=AGENT_HELP)
    m.add_argument(
        "--games", type=arg("int", 1), default=10, metavar="N", help="default: %(default)s"
    )
    m.add_argument(
        "--first",
        type=arg("int", 0),
        default=0,
        metavar="N",
        help="continue an earlier run of N games: play games N+1 .. N+--games with the "
        "starts and seats one long run would give them",
    )
    m.add_argument(
        "--sprt",
        metavar="SPEC",
        nargs="?",
        const="elo0=0,elo1=10,alpha=0.05,beta=0.05",
        help="stop when decided: elo0=0,elo1=10,alpha=0.05,beta=0.05",
    )
    _common(m)
    _outputs(m)
    m.set_defaults(func=_match)

    t = sub.add_parser(
        "tournament",
        help="a round robin (or gauntlet) between agents: crosstable and ratings",
        description="Every pair of agents plays each round one start from both seats "
        "(--gauntlet: the first agent against each of the others).",
    )
    t.add_argument("agents", nargs="+", metavar="AGENT", help=AGENT_HELP)
    t.add_argument(
        "--rounds", type=arg("int", 1), default=1, metavar="N", help="default: %(default)s"
    )
    t.add_argument("--gauntlet", action="store_true", help="first agent against the rest")
    _common(t)
    _outputs(t)
    t.set_defaults(func=_tournament)

    v = sub.add_parser(
        "variants",
        help="the games enoch referees, with their options and built-in agents",
    )
    v.add_argument("--json", action="store_true", help="as JSON (the options as JSON Schemas)")
    v.set_defaults(func=_variants)

    b = sub.add_parser(
        "rulebook",
        help="print the rules and protocol written for a model (llm: agents' system prompt)",
        description="Print the game's rulebook for agents: the board, the men, every rule an "
        "agent must know, and the exact JSON of the state and of every answer, with examples. "
        "It is the system prompt of llm: agents.",
    )
    b.add_argument(
        "--variant", "-variant", default="chess", metavar="NAME", help="chess (default), enochian"
    )
    b.set_defaults(func=_rulebook)


# ---------------------------------------------------------------------- shared


def _game(args: argparse.Namespace) -> tuple[Any, Any]:
    """The game and its setup from --variant, --option and the chess shortcuts."""
    from enoch.errors import InputError
    from enoch.game.options import parse_pairs
    from enoch.game.registry import find_game

    game = find_game(args.variant)
    values: dict[str, Any] = parse_pairs(args.option)
    for flag in ("fen", "openings", "moves"):
        value = getattr(args, flag, None)
        if value is None:
            continue
        if flag not in {o.name for o in game.options}:
            raise InputError(f"--{flag} is not an option of {game.name}")
        if flag in values:
            raise InputError(f"give --{flag} or --option {flag}=, not both")
        values[flag] = value
    max_plies = args.max_plies if args.max_plies is not None else game.default_max_plies
    if max_plies is not None and max_plies < 1:
        raise InputError(f"--max-plies must be at least 1, got {max_plies}")
    return game, game.setup(values, max_plies=max_plies)


def _seats_from_agents(game: Any, args: argparse.Namespace, n: int) -> Any:
    """For a game whose seat count is an option (Enochian players), take it from the number of
    agents when the user did not set it."""
    from enoch.game.options import parse_pairs

    key = game.seats_option
    if key and key not in parse_pairs(args.option) and n in _choices(game, key):
        args.option = [*args.option, f"{key}={n}"]
    return _game(args)


def _choices(game: Any, key: str) -> tuple[Any, ...]:
    spec = next(o for o in game.options if o.name == key)
    return tuple(spec.choices or ())


def _config(
    args: argparse.Namespace, movetime: float | None = None, agents: tuple[str, ...] = ()
) -> Any:
    from enoch.arena.clock import TimeControl
    from enoch.arena.referee import GameConfig
    from enoch.arena.transport import Limits, resolve_sandbox
    from enoch.errors import InputError

    mt = args.movetime if args.movetime is not None else movetime
    for flag, value in (("movetime", mt), ("timeout", args.timeout), ("grace", args.grace)):
        if value is not None and not math.isfinite(value):
            raise InputError(f"--{flag} must be a finite number, got {value}")
    if mt is not None and not mt > 0:
        raise InputError(f"--movetime must be positive, got {mt}")
    if args.tc and args.movetime is not None:
        raise InputError("give --movetime or --tc, not both")
    if not args.timeout > 0:
        raise InputError("--timeout must be positive")
    if args.grace < 0:
        raise InputError("--grace must not be negative")
    if args.retries < 0:
        raise InputError("--retries must be 0 or more")
    if args.memory_mb < 0:
        raise InputError("--memory-mb must not be negative (0 = no limit)")
    if args.max_answer_bytes < 64:
        raise InputError("--max-answer-bytes must be at least 64")
    tc = TimeControl.parse(args.tc) if args.tc else None
    limits = Limits(
        max_answer_bytes=args.max_answer_bytes,
        memory_mb=args.memory_mb or None,
        # (getattr: commands that build their own namespace, enoch enochian play, lack them)
        sandbox=not getattr(args, "no_sandbox", False),
        network=not getattr(args, "no_network", False),
        allow_insecure=bool(getattr(args, "allow_insecure", False)),
    )
    if any(not a.startswith(_IN_PROCESS) for a in agents):
        # probed here, once, before any game: the warning is one line per run, a refused
        # --no-network an input error, and worker processes get limits that need no probe
        limits = resolve_sandbox(limits)
    return GameConfig(
        movetime=None if tc else mt,
        tc=tc,
        timeout=args.timeout,
        grace=args.grace,
        lenient=args.lenient,
        retries=args.retries,
        limits=limits,
    )


def _check_agents(specs: list[str], game: Any, args: argparse.Namespace | None = None) -> None:
    from enoch.arena.players import check_agent

    insecure = bool(getattr(args, "allow_insecure", False))
    for spec in specs:
        check_agent(spec, game, allow_insecure=insecure)


def strongest_builtin(variant: str = "chess") -> str:
    return STRONGEST.get(variant, "builtin:random")


# ---------------------------------------------------------------------- play


def _play(args: argparse.Namespace) -> int:
    from rich.console import Console

    from enoch.arena.records import JsonlWriter
    from enoch.arena.referee import Referee, play_game
    from enoch.errors import InputError

    agents = list(args.agents)
    default_movetime = None
    game, setup = _seats_from_agents(_game(args)[0], args, len(agents))
    seats = game.seats(setup)
    if not agents:
        agents = [strongest_builtin(game.name)]
        default_movetime = PLAY_MOVETIME
    if len(agents) == 1:
        agents = agents * seats
    if len(agents) != seats:
        raise InputError(
            f"{game.name} here has {seats} seats: give {seats} agents, one, or none "
            f"(got {len(agents)})"
        )
    _check_agents(agents, game, args)
    config = _config(args, default_movetime, tuple(agents))
    if args.log and args.log_dir:
        raise InputError("give --log or --log-dir, not both")
    state = game.new_state(setup)

    console = Console(stderr=False, highlight=False)
    colour = console.is_terminal

    def on_move(ref: Referee, info: dict[str, Any]) -> None:
        if args.quiet:
            return
        st = ref.state
        seat = info["player"]
        raw = info["raw"]
        shown = raw if isinstance(raw, str) else _compact(raw, st)
        clock = ""
        if ref.clock is not None:
            clock = "   clocks " + "  ".join(f"{t:.2f}s" for t in ref.clock.remaining)
        console.print(
            f"\n{st.ply}. {st.moves()[-1]}   [{game.seat_name(setup, seat)}: "
            f"{ref.players[seat].name}, {info['elapsed']:.3f}s]{clock}",
            markup=False,
        )
        console.print(f"answer: {shown.strip()[:200]}", markup=False)
        console.print(game.board(st, colour))

    from pathlib import Path

    if args.log_dir:
        from enoch.arena.match import _make_log_dir

        _make_log_dir(Path(args.log_dir))
    log_path = args.log or (str(Path(args.log_dir) / "game-0001.jsonl") if args.log_dir else None)
    log = JsonlWriter(log_path, mode="w") if log_path else None
    record_writer, results_writer = _writers(args, game)
    if not args.quiet:
        console.print(
            " vs ".join(f"{a} ({game.seat_name(setup, i)})" for i, a in enumerate(agents)),
            markup=False,
        )
        console.print(game.board(state, colour))
    try:
        result = play_game(
            *agents, variant=game, state=state, config=config, log=log, on_move=on_move
        )
    finally:
        if log is not None:
            log.close()
    console.print(f"\n{result.result}  {result.termination}: {result.reason}", markup=False)
    text = game.record_text(result, event="enoch play", round_="1")
    sys.stdout.write("\n" + text)
    record_writer.write(result, event="enoch play", round_="1")
    record_writer.close()
    results_writer({"game": 1, **result.to_json()})
    results_writer.close()
    return 0


def _writers(args: argparse.Namespace, game: Any) -> tuple[Any, Any]:
    """The record and results writers, opened now: a path that cannot be written is an input
    error before any game starts."""
    from enoch.arena.records import JsonlWriter, RecordWriter

    return RecordWriter(args.record, game, mode="w"), JsonlWriter(args.results, mode="a")


def _compact(raw: Any, state: Any) -> str:
    import json

    if isinstance(raw, int):
        return str(state.moves()[-1])
    return json.dumps(raw)


# ---------------------------------------------------------------------- match


def _fmt_elo(elo: tuple[float, float, float]) -> str:
    from enoch.arena.stats import signed

    e, lo, hi = elo
    if math.isinf(e):
        return signed(e)
    if math.isinf(lo) or math.isinf(hi):
        return f"{signed(e)} (interval unbounded)"
    return f"{signed(e)} ± {(hi - lo) / 2:.1f}  [{signed(lo)}, {signed(hi)}]"


def _match(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
    from rich.table import Table

    from enoch.arena.match import match_schedule, run_match, unique_names
    from enoch.arena.stats import Sprt
    from enoch.errors import InputError

    game, setup = _seats_from_agents(_game(args)[0], args, len(args.agents))
    seats = game.seats(setup)
    if len(args.agents) != seats:
        raise InputError(
            f"a {game.name} match here has {seats} seats: give {seats} agents, "
            f"not {len(args.agents)}"
        )
    _check_agents(args.agents, game, args)
    if args.games < 1:
        raise InputError("--games must be at least 1")
    if args.first < 0:
        raise InputError("--first must not be negative")
    if args.concurrency is not None and args.concurrency < 1:
        raise InputError("--concurrency must be at least 1")
    config = _config(args, agents=tuple(args.agents))
    starts = game.starts(setup)
    sprt = Sprt.parse(args.sprt) if args.sprt else None
    if sprt is not None and seats != 2:
        raise InputError("--sprt needs two agents")
    names = unique_names(args.agents)
    _check_outputs(args)
    err = Console(stderr=True)
    out = Console(highlight=False)
    schedule = match_schedule(args.games, starts, args.first, seats)

    with (
        _backend(args, schedule, names) as backend,
        Progress(
            TextColumn("[bold]match"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.description}"),
            console=err,
            transient=True,
        ) as progress,
    ):
        task = progress.add_task("", total=args.games)

        def on_result(outcome: Any, sched: Any, result: Any) -> bool:
            sc = outcome.score(0)
            desc = f"+{sc.wins} ={sc.draws} -{sc.losses}  score {sc.fraction:.3f}"
            if sprt is not None:
                lo, hi = sprt.bounds()
                desc += f"  LLR {sprt.llr(outcome.pair_score(0)):+.2f} [{lo:.2f}, {hi:.2f}]"
            progress.update(task, completed=len(outcome.games), description=desc)
            return False

        outcome = run_match(
            *args.agents,
            variant=game,
            setup=setup,
            games=args.games,
            first=args.first,
            starts=starts,
            sprt=sprt,
            on_result=on_result,
            names=names,
            config=config,
            **_run_options(args, backend),
        )
    if seats == 2:
        sc = outcome.score(0)
        table = Table(title=f"{names[0]} vs {names[1]} ({game.name})")
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
        ps = outcome.pair_score(0)
        if ps.pairs:
            out.print(
                f"pairs {ps.pairs} (0, ½, 1, 1½, 2 points: {', '.join(map(str, ps.counts))}), "
                f"Elo over pairs {_fmt_elo(ps.elo())}",
                markup=False,
            )
    else:
        out.print(_ratings_table(outcome, f"{game.name}: {seats} seats"))
    terms: dict[str, int] = {}
    for _, r in outcome.games:
        terms[r.termination] = terms.get(r.termination, 0) + 1
    out.print(
        "terminations: " + ", ".join(f"{k} {v}" for k, v in sorted(terms.items())), markup=False
    )
    for line in _usage_lines(outcome):
        out.print(line, markup=False, soft_wrap=True)
    if sprt is not None:
        ps = outcome.pair_score(0)
        lo, hi = sprt.bounds()
        verdict = {
            "H1": f"H1 accepted (elo >= {sprt.elo1:g})",
            "H0": f"H0 accepted (elo <= {sprt.elo0:g})",
            None: "undecided",
        }[outcome.stopped_by_sprt]
        out.print(
            f"SPRT elo0={sprt.elo0:g} elo1={sprt.elo1:g} alpha={sprt.alpha:g} "
            f"beta={sprt.beta:g} (pentanomial, {ps.pairs} pairs): LLR {sprt.llr(ps):+.2f} "
            f"[{lo:.2f}, {hi:.2f}], {verdict}",
            markup=False,
        )
    return 0


def _run_options(args: argparse.Namespace, backend: Any) -> dict[str, Any]:
    """What a match and a tournament take alike from the command line: outputs and backend."""
    return {
        "record": args.record,
        "results": args.results,
        "log_dir": args.log_dir,
        "backend": backend,
        "concurrency": args.concurrency,
        "resume": args.resume,
        "game_timeout": args.game_timeout,
    }


def _usage_lines(outcome: Any) -> list[str]:
    """For agents that report tokens (``llm:``): their requests, tokens and cost over the
    match; and which games were abandoned, to be played again with ``--first``."""
    totals: dict[int, dict[str, float]] = {}
    abandoned: list[int] = []
    for sched, result in outcome.games:
        if result.termination == "abandoned":
            abandoned.append(sched.index)
        for seat, usage in enumerate(result.usage or []):
            if usage.get("prompt_tokens") is None and usage.get("cost") is None:
                continue
            t = totals.setdefault(sched.seats[seat], {})
            for key in ("requests", "retries", "prompt_tokens", "completion_tokens", "cost"):
                t[key] = t.get(key, 0.0) + float(usage.get(key) or 0)
            t["priced"] = t.get("priced", 0.0) + (usage.get("cost") is not None)
    lines = []
    for agent, t in sorted(totals.items()):
        cost = f", cost {t['cost']:.4f}" if t["priced"] else ""
        lines.append(
            f"usage of {outcome.names[agent]}: {t['requests']:.0f} requests, "
            f"{t['retries']:.0f} retries, {t['prompt_tokens']:.0f} prompt + "
            f"{t['completion_tokens']:.0f} completion tokens{cost}"
        )
    if abandoned:
        shown = ", ".join(map(str, abandoned[:10])) + (" ..." if len(abandoned) > 10 else "")
        lines.append(
            f"abandoned (the endpoint stayed down; not rated): game {shown}; play game G again "
            "with --first G-1 --games 1"
        )
    return lines


def _check_outputs(args: argparse.Namespace) -> None:
    """Every output checked writable (the log folder made) before the first game starts and
    before the progress bar: a path that cannot be written is one line and exit 2."""
    from pathlib import Path

    from enoch.arena.match import _make_log_dir
    from enoch.arena.records import _open

    if args.log_dir is not None:
        _make_log_dir(Path(args.log_dir))
    for flag in ("record", "results"):
        path = getattr(args, flag)
        if path is not None:
            _open(Path(path), "a").close()


def _ratings_table(outcome: Any, title: str) -> Any:
    from rich.table import Table

    from enoch.arena.match import tournament_ratings
    from enoch.arena.stats import signed

    names = outcome.names
    rated = tournament_ratings(outcome)
    order = sorted(range(len(names)), key=lambda i: -rated[names[i]][0])
    table = Table(title=title)
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
            f"{signed(elo, 0)} ± {margin:.0f}" if math.isfinite(margin) else signed(elo, 0),
            f"{total_sc.points:g}/{total_sc.games}",
            *cells,
        )
    return table


# ---------------------------------------------------------------------- tournament


def _tournament(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from enoch.arena.match import run_tournament, tournament_schedule, unique_names
    from enoch.errors import InputError

    if len(args.agents) < 2:
        raise InputError("a tournament needs at least two agents")
    if args.rounds < 1 or (args.concurrency is not None and args.concurrency < 1):
        raise InputError("--rounds and --concurrency must be at least 1")
    game, setup = _game(args)
    _check_agents(args.agents, game, args)
    config = _config(args, agents=tuple(args.agents))
    starts = game.starts(setup)
    names = unique_names(args.agents)
    _check_outputs(args)
    schedule = tournament_schedule(len(args.agents), args.rounds, starts, gauntlet=args.gauntlet)
    total = len(schedule)
    err = Console(stderr=True)
    out = Console(highlight=False)
    with (
        _backend(args, schedule, names) as backend,
        Progress(
            TextColumn("[bold]tournament"),
            BarColumn(),
            MofNCompleteColumn(),
            console=err,
            transient=True,
        ) as progress,
    ):
        task = progress.add_task("", total=total)

        def on_result(outcome: Any, game_: Any, result: Any) -> bool:
            progress.update(task, completed=len(outcome.games))
            return False

        outcome = run_tournament(
            args.agents,
            variant=game,
            setup=setup,
            rounds=args.rounds,
            gauntlet=args.gauntlet,
            starts=starts,
            on_result=on_result,
            names=names,
            config=config,
            **_run_options(args, backend),
        )
    title = "crosstable" + (" (gauntlet)" if args.gauntlet else "")
    out.print(_ratings_table(outcome, title))
    for line in _usage_lines(outcome):
        out.print(line, markup=False, soft_wrap=True)
    return 0


# ---------------------------------------------------------------------- rulebook


def _rulebook(args: argparse.Namespace) -> int:
    from enoch.game.registry import find_game

    sys.stdout.write(find_game(args.variant).rulebook())
    return 0


# ---------------------------------------------------------------------- variants


def _variants(args: argparse.Namespace) -> int:
    import json

    from enoch.game.options import options_schema
    from enoch.game.registry import find_game, game_names

    games = [find_game(n) for n in game_names()]
    if args.json:
        data = [
            {
                "name": g.name,
                "title": g.title,
                "builtins": sorted(g.builtins),
                "options": options_schema(g.options),
            }
            for g in games
        ]
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
        return 0
    for g in games:
        print(f"{g.name}: {g.title}")
        print(f"  built-in agents: {', '.join('builtin:' + b for b in sorted(g.builtins))}")
        for o in g.options:
            extra = f" ({', '.join(map(str, o.choices))})" if o.choices else ""
            print(f"  --option {o.name}={o.default}{extra}: {o.help}")
    return 0
