"""``enoch agent``: answer protocol states on stdin with a built-in agent."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser(
        "agent",
        help="one state JSON on stdin -> one answer JSON on stdout",
        description="Answer a state JSON object read from stdin with exactly one answer JSON "
        "object on stdout. With --jsonl, answer one state per line until end of input.",
    )
    p.add_argument(
        "--agent",
        default=None,
        metavar="NAME",
        help="a built-in agent of the variant, with options as builtin:NAME?opt=val "
        "(chess: builtin:engine (default), builtin:microchess, builtin:greedy, builtin:random; "
        "enochian: builtin:search (default), builtin:greedy, builtin:random)",
    )
    p.add_argument("--variant", default="chess", metavar="NAME", help="chess (default) or enochian")
    p.add_argument(
        "--movetime", type=float, metavar="S", help="seconds per move, for agents that think"
    )
    p.add_argument("--jsonl", action="store_true", help="one state per input line, until EOF")
    p.set_defaults(func=_agent)


def _agent(args: argparse.Namespace) -> int:
    import json
    import math
    import sys

    from enoch._json import loads_strict
    from enoch.errors import InputError

    spec = args.agent or ("builtin:search" if args.variant == "enochian" else "builtin:engine")
    if not spec.startswith("builtin:"):
        raise InputError(f"enoch agent runs built-in agents only (builtin:NAME), got {spec!r}")
    if args.movetime is not None:
        if not args.movetime > 0 or not math.isfinite(args.movetime):
            raise InputError(f"--movetime must be a positive number, got {args.movetime}")
        spec += ("&" if "?" in spec else "?") + f"movetime={args.movetime}"
    agent = _make(spec, args.variant)
    try:
        if not args.jsonl:
            answer = agent.answer(loads_strict(sys.stdin.buffer.read(), "state"))
            sys.stdout.write(json.dumps(answer) + "\n")
            return 0
        for number, line in enumerate(sys.stdin.buffer, 1):
            if not line.strip():
                continue
            try:
                answer = agent.answer(loads_strict(line, "state"))
            except InputError as exc:
                raise InputError(f"line {number}: {exc}") from None
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()
        return 0
    finally:
        agent.close()


def _make(spec: str, variant: str) -> Any:
    """A built-in agent of the variant."""
    from urllib.parse import parse_qsl

    from enoch.errors import InputError

    name, _, query = spec[len("builtin:") :].partition("?")
    try:
        options = dict(parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query)))
    except ValueError:
        raise InputError(f"bad options {query[:40]!r} for builtin:{name}") from None
    if variant == "chess":
        # the CLI is the top layer; naming chess here spares the game registry (cold start)
        from enoch.fide.agents import make_builtin

        return make_builtin(name, options)
    from enoch.game.registry import find_game

    return find_game(variant).make_builtin(name, options)
