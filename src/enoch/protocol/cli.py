"""``enoch legal`` and ``enoch validate``: the protocol's state JSON from stdin."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    from enoch._json import add_state_limit  # light: json and enoch.errors

    p = sub.add_parser(
        "legal",
        help="state JSON on stdin -> JSON list of legal move objects",
        description="Read one state JSON object on stdin and print the JSON list of its legal "
        "moves, each as an answer object {from, to, promotion}.",
    )
    add_state_limit(p)
    p.set_defaults(func=_legal)
    v = sub.add_parser(
        "validate",
        help="state JSON on stdin -> 'ok' or the list of problems",
        description="Check a state JSON object on stdin against the protocol: prints 'ok' "
        "(exit 0), or every problem found, one per line (exit 2).",
    )
    v.add_argument("--json", action="store_true", help='print {"ok": bool, "problems": [...]}')
    add_state_limit(v)
    v.set_defaults(func=_validate)


def _read_state(args: argparse.Namespace) -> Any:
    import sys

    from enoch._json import loads_strict, read_limited

    text = read_limited(sys.stdin.buffer, "state", args.max_state_bytes)
    return loads_strict(text, "state", args.max_state_bytes)


def _legal(args: argparse.Namespace) -> int:
    import json

    from enoch.protocol import move_answer, read_state

    state = read_state(_read_state(args))
    moves = [move_answer(m) for m in state.position.legal_moves()]
    moves.sort(key=lambda a: (a["from"], a["to"], a["promotion"] or ""))
    print(json.dumps(moves))
    return 0


def _validate(args: argparse.Namespace) -> int:
    import json

    from enoch.errors import ProtocolError
    from enoch.protocol import state_problems

    try:
        problems, _ = state_problems(_read_state(args))
    except ProtocolError as exc:
        problems = [str(exc)]
    if args.json:
        print(json.dumps({"ok": not problems, "problems": problems}))
    elif problems:
        for p in problems:
            print(p)
    else:
        print("ok")
    return 2 if problems else 0
