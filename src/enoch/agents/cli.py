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
    from enoch._json import add_state_limit
    from enoch._numbers import seconds

    p.add_argument(
        "--movetime", type=seconds(), metavar="S", help="seconds per move, for agents that think"
    )
    p.add_argument("--jsonl", action="store_true", help="one state per input line, until EOF")
    add_state_limit(p)
    p.set_defaults(func=_agent)


def _agent(args: argparse.Namespace) -> int:
    import json
    import sys

    from enoch._json import read_limited, read_line_limited
    from enoch.errors import InputError, quote

    spec = args.agent or ("builtin:search" if args.variant == "enochian" else "builtin:engine")
    if not spec.startswith("builtin:"):
        raise InputError(f"enoch agent runs built-in agents only (builtin:NAME), got {quote(spec)}")
    if args.movetime is not None:
        spec += ("&" if "?" in spec else "?") + f"movetime={args.movetime}"
    agent = _make(spec, args.variant)
    limit = args.max_state_bytes
    try:
        if not args.jsonl:
            state = _state_object(read_limited(sys.stdin.buffer, "state", limit), limit)
            sys.stdout.write(json.dumps(agent.answer(state)) + "\n")
            return 0
        number = 0
        while line := read_line_limited(sys.stdin.buffer, f"line {number + 1}: state", limit):
            number += 1
            if not line.strip():
                continue
            try:
                answer = agent.answer(_state_object(line, limit))
            except InputError as exc:
                raise InputError(f"line {number}: {exc}") from None
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()
        return 0
    finally:
        agent.close()


def _state_object(text: bytes, limit: int) -> dict[str, Any]:
    """The decoded state, which must be a JSON object (a JSON string holding a state's text is
    a string: refused here for every agent, never decoded twice)."""
    from enoch._json import loads_strict
    from enoch.errors import ProtocolError

    data = loads_strict(text, "state", limit)
    if not isinstance(data, dict):
        kind = {str: "a string", list: "an array", bool: "a boolean", type(None): "null"}
        got = kind.get(type(data), "a number")
        raise ProtocolError(f"state must be a JSON object, got {got}")
    return data


def _make(spec: str, variant: str) -> Any:
    """A built-in agent of the variant."""
    from urllib.parse import parse_qsl

    from enoch.errors import InputError

    name, _, query = spec[len("builtin:") :].partition("?")
    try:
        options = dict(parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query)))
    except ValueError:
        raise InputError(f"bad options {query[:40]!r} for builtin:{name[:40]}") from None
    if variant == "chess":
        # the CLI is the top layer; naming chess here spares the game registry (cold start)
        from enoch.fide.agents import make_builtin

        return make_builtin(name, options)
    from enoch.game.registry import find_game

    return find_game(variant).make_builtin(name, options)
