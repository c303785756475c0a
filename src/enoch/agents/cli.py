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
        default="builtin:engine",
        metavar="NAME",
        help="builtin:engine, builtin:microchess, builtin:greedy, builtin:random, with options "
        "as builtin:NAME?opt=val (default: %(default)s, enoch's search engine)",
    )
    p.add_argument(
        "--movetime", type=float, metavar="S", help="seconds per move, for agents that think"
    )
    p.add_argument("--jsonl", action="store_true", help="one state per input line, until EOF")
    p.set_defaults(func=_agent)


def _agent(args: argparse.Namespace) -> int:
    import json
    import sys

    from enoch.agents.registry import make_builtin
    from enoch.errors import InputError
    from enoch.protocol import loads_strict

    spec = args.agent
    if not spec.startswith("builtin:"):
        raise InputError(f"enoch agent runs built-in agents only (builtin:NAME), got {spec!r}")
    if args.movetime is not None:
        if args.movetime <= 0:
            raise InputError(f"--movetime must be positive, got {args.movetime}")
        spec += ("&" if "?" in spec else "?") + f"movetime={args.movetime}"
    agent = make_builtin(spec)
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
