"""``enoch enochian ...``: arrays, perft, play, match, validate.

Nothing heavy is imported at module level; each handler imports what it needs.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def register(sub: Any) -> None:
    """Add the ``enochian`` command and its subcommands."""
    p = sub.add_parser(
        "enochian",
        help="the four-army Enochian chess (Zalewski rules)",
        description="Enochian chess: arrays, perft, play, match, validate.",
    )
    s = p.add_subparsers(dest="enochian_command", metavar="SUBCOMMAND")
    s.required = True

    a = s.add_parser("arrays", help="list the 16 starting arrays")
    a.set_defaults(func=_arrays)

    pf = s.add_parser("perft", help="count move sequences from an array's start")
    pf.add_argument("array")
    pf.add_argument("depth", type=int)
    pf.add_argument("--direction", default="deosil", choices=["deosil", "widdershins"])
    pf.add_argument("--divide", action="store_true", help="count per first move")
    pf.set_defaults(func=_perft)

    pl = s.add_parser(
        "play",
        help="play against engines (4 or 2 players), or watch agents",
        description="Play one army against three agents (--players 4), or one "
        "team's two armies against an agent (--players 2); without "
        "--army, watch the agents play.",
    )
    _game_options(pl)
    pl.add_argument(
        "--players",
        type=int,
        default=4,
        choices=[2, 4],
        help="4: one army per player; 2: one team (two armies) per player",
    )
    pl.add_argument(
        "--army", help="the army you play; with --players 2 you command its team (both armies)"
    )
    pl.add_argument(
        "--agents",
        default="search?movetime=0.5",
        help="comma-separated agents for the other seats, in seat order: "
        "random, greedy, search?movetime=S, exec:CMD, jsonl:CMD, "
        "http(s)://URL; one name is used for every seat",
    )
    pl.add_argument(
        "--movetime",
        type=float,
        help="seconds per answer for the agents (sent as move_time_limit; none for you)",
    )
    pl.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        help="seconds an agent may take when there is no --movetime",
    )
    pl.add_argument("--quiet", action="store_true", help="do not draw the board after each move")
    pl.set_defaults(func=_play)

    m = s.add_parser(
        "match",
        help="2 or 4 agents of any transport over several games",
        description="A match: 2 agents (one team each) or 4 (one army each); "
        "seats rotate every game, arrays after a full turn of seats.",
    )
    m.add_argument(
        "agents",
        nargs="+",
        metavar="AGENT",
        help="2 or 4 agents: random, greedy, search?movetime=S, builtin:NAME, "
        "exec:CMD, jsonl:CMD, http(s)://URL",
    )
    m.add_argument("--games", type=int, default=2)
    m.add_argument(
        "--arrays",
        default="earth_of_fire",
        help="comma-separated array ids, rotated; 'all' for all 16",
    )
    m.add_argument("--direction", default="deosil", choices=["deosil", "widdershins"])
    m.add_argument("--max-plies", type=int, default=400)
    m.add_argument("--movetime", type=float, help="seconds per answer (move_time_limit)")
    m.add_argument(
        "--timeout", type=float, default=60.0, help="seconds per answer when there is no --movetime"
    )
    m.add_argument("--record", help="write the game records (text) here")
    m.add_argument("--log", help="write the JSONL event log here")
    m.add_argument("--results", help="write one results line (JSON) per game here")
    m.add_argument("--quiet", action="store_true", help="no line per game on stderr")
    m.set_defaults(func=_match)

    v = s.add_parser("validate", help="validate an Enochian state JSON on stdin")
    v.set_defaults(func=_validate)


def _game_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--array", default="earth_of_fire")
    p.add_argument("--direction", default="deosil", choices=["deosil", "widdershins"])
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rule option, e.g. ally_king_capture=false (repeatable)",
    )
    p.add_argument("--divination", action="store_true", help="divination mode (seeded die)")
    p.add_argument("--querent", help="divination: the querent's army (default: --army or air)")
    p.add_argument("--ptah", default="d5", help="divination: the Ptah square")
    p.add_argument("--seed", type=int, default=0, help="divination die seed")
    p.add_argument("--max-plies", type=int, default=600)
    p.add_argument("--record", help="write the text game record here")
    p.add_argument("--log", help="write the JSONL event log here")


def _arrays(args: argparse.Namespace) -> int:
    from enoch.enochian.geometry import ARMY_NAMES, KIND_NAMES
    from enoch.enochian.spec import available_arrays

    for spec in available_arrays():
        order = " ".join(ARMY_NAMES[x] for x in spec.turn_order["deosil"])
        print(
            f"{spec.id:<16} {spec.name:<16} partner {KIND_NAMES[spec.throne_partner]:<7} "
            f"deosil: {order}"
        )
    return 0


def _perft(args: argparse.Namespace) -> int:
    import time

    from enoch.enochian.state import new_game
    from enoch.errors import InputError

    if args.depth < 0:
        raise InputError("depth must be >= 0")
    st = new_game(args.array, args.direction)
    t = time.perf_counter()
    if args.divide:
        total = 0
        for m in st.legal_moves():
            name = st.move_str(m)
            st.make(m)
            n = st.perft(args.depth - 1)
            st.undo()
            total += n
            print(f"{name}: {n}")
    else:
        total = st.perft(args.depth)
    dt = time.perf_counter() - t
    print(f"{total}")
    sys.stderr.write(f"{dt:.2f} s, {total / max(dt, 1e-9):.0f} positions/s\n")
    return 0


def _options(pairs: list[str]) -> dict[str, str]:
    from enoch.errors import InputError

    out = {}
    for p in pairs:
        k, eq, v = p.partition("=")
        if not eq:
            raise InputError(f"--option {p!r}: expected NAME=VALUE")
        out[k] = v
    return out


class HumanAgent:
    """A person at the terminal: the board, then a move typed in the game's notation.

    ``untimed``: the referee's per-answer limit is for the agents, not for the person."""

    name = "human"
    untimed = True

    def __init__(self, console: Any) -> None:
        self.console = console

    def answer(self, state: dict[str, Any]) -> dict[str, Any]:
        from enoch.enochian.protocol import move_to_json, state_from_json
        from enoch.enochian.render import board_text, status_line
        from enoch.errors import IllegalMoveError

        st = state_from_json(state)
        self.console.print(board_text(st))
        self.console.print(status_line(st))
        if st.pending is not None:
            while True:
                ans = input("exchange of prisoners offered: accept? [y/n] ").strip().lower()
                if ans in ("y", "n"):
                    return {"action": "accept_exchange" if ans == "y" else "refuse_exchange"}
        moves = st.legal_moves()
        self.console.print("legal: " + " ".join(st.move_str(m) for m in moves))
        while True:
            try:
                text = input(
                    f"{state['to_move']} to move (e.g. {st.move_str(moves[0])}, offer, resign): "
                )
            except EOFError:
                return {"action": "resign"}
            text = text.strip()
            if text in ("offer", "resign", "withdraw"):
                return {"action": {"offer": "offer_exchange"}.get(text, text)}
            try:
                return move_to_json(st, st.parse_move(text))
            except IllegalMoveError as exc:
                self.console.print(f"[red]{exc}[/red]")

    def close(self) -> None:
        """Nothing to release."""


def _open(path: str | None) -> Any:
    from enoch.errors import InputError

    if not path:
        return None
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None


def _check_times(args: argparse.Namespace) -> None:
    from enoch.errors import InputError

    if args.movetime is not None and not args.movetime > 0:
        raise InputError(f"--movetime must be > 0, not {args.movetime}")
    if not args.timeout > 0:
        raise InputError(f"--timeout must be > 0, not {args.timeout}")
    if args.max_plies < 1:
        raise InputError(f"--max-plies must be >= 1, not {args.max_plies}")


def _specs(text: str, option: str) -> list[str]:
    from enoch.enochian.referee import check_agent_spec
    from enoch.errors import InputError

    specs = [x.strip() for x in text.split(",")]
    if any(not x for x in specs):
        raise InputError(f"{option}: empty agent name in {text!r}")
    for spec in specs:
        check_agent_spec(spec)
    return specs


def _play(args: argparse.Namespace) -> int:
    from rich.console import Console

    from enoch.enochian.geometry import ARMY_INDEX, ARMY_NAMES, SQUARE_INDEX
    from enoch.enochian.referee import play_game
    from enoch.enochian.render import board_text, last_action, status_line
    from enoch.enochian.state import Divination, new_game
    from enoch.errors import InputError

    console = Console()
    _check_times(args)
    if args.army is not None and args.army not in ARMY_INDEX:
        raise InputError(f"--army: unknown army {args.army!r} (air, water, fire, earth)")
    div = None
    if args.divination:
        q = args.querent or args.army or "air"
        if q not in ARMY_INDEX:
            raise InputError(f"--querent: unknown army {q!r}")
        if args.ptah not in SQUARE_INDEX:
            raise InputError(f"--ptah: not a square: {args.ptah!r}")
        div = Divination(ARMY_INDEX[q], SQUARE_INDEX[args.ptah], args.seed)
    players = args.players
    st = new_game(
        args.array,
        args.direction,
        _options(args.option),
        players=players,
        divination=div,
        max_plies=args.max_plies,
    )
    human_seat = -1 if args.army is None else st.config.controllers[ARMY_INDEX[args.army]]
    engines = players - (human_seat >= 0)
    specs = _specs(args.agents, "--agents")
    if len(specs) not in (1, engines):
        raise InputError(
            f"--agents: give one agent, or {engines} (one per engine seat), not {len(specs)}"
        )
    engine_specs = iter(specs * engines if len(specs) == 1 else specs)
    agents: list[Any] = [
        HumanAgent(console) if seat == human_seat else next(engine_specs) for seat in range(players)
    ]

    def show(s: Any) -> None:
        if not args.quiet and human_seat < 0:
            console.print(board_text(s))
        console.print(f"{last_action(s.log[-1])} | {status_line(s)}" if s.log else status_line(s))

    log = _open(args.log)
    record = _open(args.record)
    try:
        if not args.quiet and human_seat < 0:
            console.print(board_text(st))
        res = play_game(
            agents,
            state=st,
            players=players,
            log=log,
            on_move=show,
            movetime=args.movetime,
            timeout=args.timeout,
        )
        if record:
            record.write(res.record)
    finally:
        for f in (log, record):
            if f:
                f.close()
    console.print(board_text(st) if not args.quiet else "")
    seats = {ARMY_NAMES[a]: res.agents[st.config.controllers[a]] for a in range(4)}
    print(json.dumps({**res.line(), "seats": seats}))
    return 0


def _match(args: argparse.Namespace) -> int:
    from enoch.enochian.referee import check_agent_spec, play_match
    from enoch.enochian.spec import available_arrays, find_array
    from enoch.errors import InputError

    _check_times(args)
    if args.games < 1:
        raise InputError("--games must be >= 1")
    if len(args.agents) not in (2, 4):
        raise InputError(
            f"give 2 agents (one per team) or 4 (one per army), not {len(args.agents)}"
        )
    arrays = (
        [a.id for a in available_arrays()]
        if args.arrays == "all"
        else [find_array(x.strip()).id for x in args.arrays.split(",")]
    )
    for spec in args.agents:
        check_agent_spec(spec)
    files = {k: _open(getattr(args, k)) for k in ("record", "log", "results")}

    def progress(n: int, res: Any) -> None:
        if not args.quiet:
            winner = res.winner or "draw"
            sys.stderr.write(
                f"game {n}/{args.games}: {winner} ({res.termination}, {res.plies} plies)\n"
            )

    try:
        points = play_match(
            lambda: list(args.agents),
            args.games,
            arrays,
            players=len(args.agents),
            max_plies=args.max_plies,
            log=files["log"],
            records=files["record"],
            results=files["results"],
            direction=args.direction,
            movetime=args.movetime,
            timeout=args.timeout,
            on_game=progress,
        )
    finally:
        for f in files.values():
            if f:
                f.close()
    print(json.dumps({"games": args.games, "points": points}))
    return 0


def _validate(args: argparse.Namespace) -> int:
    from enoch.enochian.protocol import move_to_json, validate_state_text

    st = validate_state_text(sys.stdin.read())
    print(
        json.dumps(
            {
                "valid": True,
                "to_act": st.config.order and ["air", "water", "fire", "earth"][st.deciding_army],
                "legal_moves": [move_to_json(st, m) for m in st.legal_moves()],
                "notation": sorted(st.move_str(m) for m in st.legal_actions()),
            }
        )
    )
    return 0
