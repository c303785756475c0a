"""``enoch enochian ...``: arrays, perft, play, match, validate.

Nothing heavy is imported at module level; each handler imports what it needs.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from enoch._numbers import arg, seconds  # light: re, math and enoch.errors

# The deepest perft asked for: four armies make the tree far wider than chess's, and depth 10
# is past anything that finishes (the limit also keeps the recursion far from Python's).
MAX_PERFT_DEPTH = 10


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
    pf.add_argument("depth", type=arg("int", 0), help=f"0 to {MAX_PERFT_DEPTH}")
    pf.add_argument("--direction", default="deosil", choices=["deosil", "widdershins"])
    pf.add_argument("--divide", action="store_true", help="count per first move")
    pf.set_defaults(func=_perft)

    pl = s.add_parser(
        "play",
        help="play against engines (4 or 2 players), or watch agents "
        "(= enoch play --variant enochian)",
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
        "random, greedy[?noise=P], search?movetime=S, exec:CMD, jsonl:CMD, "
        "http(s)://URL; one name is used for every seat",
    )
    pl.add_argument(
        "--movetime",
        type=seconds(),
        help="seconds per answer for the agents (sent as move_time_limit; none for you)",
    )
    pl.add_argument(
        "--timeout",
        type=seconds(),
        default=60.0,
        help="seconds an agent may take when there is no --movetime",
    )
    pl.add_argument("--quiet", action="store_true", help="do not draw the board after each move")
    _containment(pl)
    pl.set_defaults(func=_play)

    m = s.add_parser(
        "match",
        help="2 or 4 agents of any transport over several games (= enoch match --variant enochian)",
        description="A match: 2 agents (one team each) or 4 (one army each); "
        "seats rotate every game, arrays after a full turn of seats.",
    )
    m.add_argument(
        "agents",
        nargs="+",
        metavar="AGENT",
        help="2 or 4 agents: random, greedy[?noise=P], search?movetime=S, builtin:NAME, "
        "exec:CMD, jsonl:CMD, http(s)://URL",
    )
    m.add_argument("--games", type=arg("int", 1), default=10)
    m.add_argument(
        "--arrays",
        default="earth_of_fire",
        help="comma-separated array ids, rotated; 'all' for all 16",
    )
    m.add_argument("--direction", default="deosil", choices=["deosil", "widdershins"])
    m.add_argument("--max-plies", type=arg("int", 1, 1_000_000), default=400)
    m.add_argument("--movetime", type=seconds(), help="seconds per answer (move_time_limit)")
    m.add_argument(
        "--timeout",
        type=seconds(),
        default=60.0,
        help="seconds per answer when there is no --movetime",
    )
    m.add_argument("--record", help="write the game records (text) here")
    m.add_argument("--log-dir", help="one JSONL event log per game in this folder")
    m.add_argument("--results", help="write one results line (JSON) per game here")
    m.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    m.add_argument("--quiet", action="store_true", help="no line per game on stderr")
    _containment(m)
    m.set_defaults(func=_match)

    v = s.add_parser("validate", help="validate an Enochian state JSON on stdin")
    from enoch._json import add_state_limit

    add_state_limit(v)
    v.set_defaults(func=_validate)


def _containment(p: argparse.ArgumentParser) -> None:
    """The arena's containment flags (docs/security.md), as ``enoch play|match`` have them."""
    p.add_argument(
        "--no-sandbox",
        action="store_true",
        help="run external agents without a PID namespace of their own",
    )
    p.add_argument(
        "--no-network",
        action="store_true",
        help="give external agents an empty network namespace (refused where impossible)",
    )


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
    p.add_argument("--seed", type=arg("int", 0), default=0, help="divination die seed")
    p.add_argument("--max-plies", type=arg("int", 1, 1_000_000), default=400)
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

    if args.depth > MAX_PERFT_DEPTH:
        raise InputError(f"depth must be at most {MAX_PERFT_DEPTH}, got {args.depth}")
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


def _generic(args: argparse.Namespace, agents: list[str], **extra: Any) -> argparse.Namespace:
    """The arena's flags for ``enoch play|match --variant enochian`` from this command's."""
    option = [f"array={args.array}" if hasattr(args, "array") else f"array={args.arrays}"]
    option += [f"direction={args.direction}", f"players={extra.pop('players')}"]
    if getattr(args, "divination", False):
        option += ["divination=true", f"ptah={args.ptah}", f"seed={args.seed}"]
        querent = args.querent or getattr(args, "army", None) or "air"
        option.append(f"querent={querent}")
    option += list(getattr(args, "option", []))
    base: dict[str, Any] = {
        "agents": agents,
        "variant": "enochian",
        "option": option,
        "max_plies": args.max_plies,
        "movetime": args.movetime,
        "tc": None,
        "timeout": args.timeout,
        "grace": 0.1,
        "lenient": False,
        "retries": 0,
        "memory_mb": 2048,
        "max_answer_bytes": 64 * 1024,
        "fen": None,
        "openings": None,
        "moves": None,
        "record": getattr(args, "record", None),
        "results": getattr(args, "results", None),
        "log_dir": None,
        "quiet": args.quiet,
        "no_sandbox": args.no_sandbox,
        "no_network": args.no_network,
    }
    base.update(extra)
    return argparse.Namespace(**base)


def _agent_name(spec: str) -> str:
    """``search?movetime=0.5`` (this command's short names) as ``builtin:search?...``."""
    from enoch.arena.players import TRANSPORTS

    spec = spec.strip()
    if spec.startswith((*TRANSPORTS, "builtin:", "uci:")) or spec == "human":
        return spec
    return "builtin:" + spec


def _specs(text: str, option: str) -> list[str]:
    from enoch.errors import InputError

    specs = [x.strip() for x in text.split(",")]
    if any(not x for x in specs):
        raise InputError(f"{option}: empty agent name in {text!r}")
    return [_agent_name(x) for x in specs]


def _play(args: argparse.Namespace) -> int:
    """``enoch play --variant enochian`` with this command's --army/--agents seating."""
    from enoch.arena.cli import _play as arena_play
    from enoch.enochian.geometry import ARMY_INDEX
    from enoch.enochian.state import new_game
    from enoch.errors import InputError

    if args.army is not None and args.army not in ARMY_INDEX:
        raise InputError(f"--army: unknown army {args.army!r} (air, water, fire, earth)")
    players = args.players
    st = new_game(args.array, args.direction, players=players)
    human_seat = -1 if args.army is None else st.config.controllers[ARMY_INDEX[args.army]]
    engines = players - (human_seat >= 0)
    specs = _specs(args.agents, "--agents")
    if len(specs) not in (1, engines):
        raise InputError(
            f"--agents: give one agent, or {engines} (one per engine seat), not {len(specs)}"
        )
    engine_specs = iter(specs * engines if len(specs) == 1 else specs)
    agents = ["human" if seat == human_seat else next(engine_specs) for seat in range(players)]
    return arena_play(_generic(args, agents, players=players, log=args.log))


def _match(args: argparse.Namespace) -> int:
    """``enoch match --variant enochian`` with this command's flags."""
    from enoch.arena.cli import _match as arena_match
    from enoch.errors import InputError

    if len(args.agents) not in (2, 4):
        raise InputError(
            f"give 2 agents (one per team) or 4 (one per army), not {len(args.agents)}"
        )
    agents = [_agent_name(a) for a in args.agents]
    ns = _generic(
        args,
        agents,
        players=len(agents),
        games=args.games,
        first=0,
        sprt=None,
        concurrency=1,
        log_dir=args.log_dir,
    )
    return arena_match(ns)


def _validate(args: argparse.Namespace) -> int:
    from enoch._json import read_limited
    from enoch.enochian.protocol import move_to_json, validate_state_text

    limit = args.max_state_bytes
    st = validate_state_text(read_limited(sys.stdin.buffer, "state", limit), limit)
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
